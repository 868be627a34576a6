"""Wrong: lets torch.broadcast_shapes do the work instead of implementing the rule."""

import torch

from solutions.q05_broadcasting import normalize_channels  # the rest as in the reference


def broadcast_shape(a, b):
    try:
        return tuple(torch.broadcast_shapes(a, b))
    except RuntimeError:
        raise ValueError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast") from None
