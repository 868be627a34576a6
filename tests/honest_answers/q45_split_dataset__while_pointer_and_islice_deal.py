"""Plain Python: the remainder handed out by a while loop with a wrapping pointer, random_split
itself for the seeded split, and the classes found by a set of the labels' values, their
members listed by comprehension and dealt out by islice over a shuffled iterator."""

import math
from collections.abc import Sequence
from itertools import islice

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    if len(fractions) == 0:
        raise ValueError("no fractions")
    for f in fractions:
        if not (0.0 <= f <= 1.0):  # NaN fails here too
            raise ValueError(f"fraction {f} outside [0, 1]")
    if not math.isclose(sum(fractions), 1.0):
        raise ValueError(f"fractions sum to {sum(fractions)}, not 1")
    sizes = [int(n * f) for f in fractions]  # truncation is the floor: n * f >= 0
    left, k = n - sum(sizes), 0
    while left > 0:
        sizes[k] += 1
        left -= 1
        k = (k + 1) % len(sizes)
    return sizes


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    return random_split(dataset, sizes, generator=torch.Generator("cpu").manual_seed(seed))


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    if labels.ndim != 1 or len(labels) != len(dataset):  # type: ignore[arg-type]
        raise ValueError("labels must be 1-D with one label per item of the dataset")
    split_sizes(len(labels), fractions)
    values = labels.tolist()
    rng = torch.Generator()
    rng.manual_seed(seed)
    dealt: list[list[int]] = [[] for _ in range(len(fractions))]
    for cls in sorted(set(values)):
        members = [i for i, v in enumerate(values) if v == cls]
        shuffled = iter([members[j] for j in torch.randperm(len(members), generator=rng)])
        for bucket, size in zip(dealt, split_sizes(len(members), fractions)):
            bucket.extend(islice(shuffled, size))
    return [Subset(dataset, idx) for idx in dealt]
