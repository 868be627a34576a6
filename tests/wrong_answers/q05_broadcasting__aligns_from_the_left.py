"""Wrong: lines the shapes up from the left (pads the shorter one at the end)."""

import itertools

from solutions.q05_broadcasting import normalize_channels  # the rest as in the reference


def broadcast_shape(a, b):
    result = []
    for x, y in itertools.zip_longest(a, b, fillvalue=1):
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast")
        result.append(max(x, y) if 1 in (x, y) else x)
    return tuple(result)
