"""Wrong: the ValueError does not say which shapes failed to broadcast."""

import itertools

from solutions.q05_broadcasting import normalize_channels  # the rest as in the reference


def broadcast_shape(a, b):
    result = []
    for x, y in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if x != y and 1 not in (x, y):
            raise ValueError(f"size {x} does not broadcast with size {y}")
        result.append(y if x == 1 else x)
    return tuple(reversed(result))
