"""Wrong: takes max(x, y) for a size-1 pair, so 1 with 0 gives 1 instead of 0."""

import itertools

from solutions.q05_broadcasting import normalize_channels  # the rest as in the reference


def broadcast_shape(a, b):
    result = []
    for x, y in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast")
        result.append(max(x, y))
    return tuple(reversed(result))
