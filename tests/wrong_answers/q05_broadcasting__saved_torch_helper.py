"""Wrong: imports torch.broadcast_shapes under its own name, out of reach of a patched torch."""

from torch import broadcast_shapes

from solutions.q05_broadcasting import normalize_channels


def broadcast_shape(a, b):
    try:
        return tuple(broadcast_shapes(a, b))
    except RuntimeError:
        raise ValueError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast") from None
