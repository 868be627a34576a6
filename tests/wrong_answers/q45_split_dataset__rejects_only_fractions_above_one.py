"""Wrong: checks each fraction against 1 only, so a negative fraction (with the sum still 1)
gives a negative size."""

import math

from solutions.q45_split_dataset import split_dataset, stratified_split

__all__ = ["split_dataset", "split_sizes", "stratified_split"]


def split_sizes(n, fractions):
    if not fractions or not math.isclose(sum(fractions), 1):
        raise ValueError(f"fractions must sum to 1, got {list(fractions)}")
    if any(f > 1 for f in fractions):
        raise ValueError(f"every fraction must be at most 1, got {list(fractions)}")
    sizes = [math.floor(n * f) for f in fractions]
    for i in range(n - sum(sizes)):
        sizes[i % len(sizes)] += 1
    return sizes
