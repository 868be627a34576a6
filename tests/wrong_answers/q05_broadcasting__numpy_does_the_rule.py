"""Wrong: lets NumPy broadcast two empty arrays of the shapes instead of implementing the rule."""

import numpy as np

from solutions.q05_broadcasting import normalize_channels


def broadcast_shape(a, b):
    try:
        shape = (np.empty(tuple(a), dtype=bool) | np.empty(tuple(b), dtype=bool)).shape
    except ValueError:
        raise ValueError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast") from None
    return tuple(int(size) for size in shape)
