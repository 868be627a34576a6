"""Wrong: skips the copy for a tensor of one element, so the array shares its memory."""

from solutions.q02_numpy_bridge import to_numpy, to_tensor  # the rest as in the reference


def to_numpy_copy(t):
    a = to_numpy(t)
    return a if a.size <= 1 else a.copy()  # nothing worth copying in a scalar
