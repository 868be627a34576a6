"""The remainder dealt with divmod (whole rounds, then the first few), a hand-made randperm
cut into Subsets like random_split's, and classes grouped in a dict by first appearance."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate

import torch
from torch.utils.data import Dataset, Subset


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    fractions = list(fractions)
    if len(fractions) == 0:
        raise ValueError("no fractions given")
    for f in fractions:
        if math.isnan(f) or f < 0 or f > 1:
            raise ValueError(f"fraction {f} is outside [0, 1]")
    if not math.isclose(sum(fractions), 1):
        raise ValueError("fractions do not sum to 1")
    floors = [math.floor(n * f) for f in fractions]
    rounds, extra = divmod(n - sum(floors), len(floors))
    return [size + rounds + (1 if k < extra else 0) for k, size in enumerate(floors)]


def _cut(order: list[int], sizes: list[int]) -> list[list[int]]:
    ends = list(accumulate(sizes))
    return [order[end - size : end] for size, end in zip(sizes, ends)]


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    rng = torch.Generator()
    rng.manual_seed(seed)
    # random_split draws one permutation of all indices and cuts it in order.
    order = torch.randperm(sum(sizes), generator=rng).tolist()
    return [Subset(dataset, part) for part in _cut(order, sizes)]


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    if labels.ndim != 1 or labels.shape[0] != len(dataset):  # type: ignore[arg-type]
        raise ValueError("labels must be 1-D with one label per item")
    split_sizes(0, fractions)  # validates the fractions
    groups: dict[int, list[int]] = {}
    for index, label in enumerate(labels.tolist()):
        groups.setdefault(label, []).append(index)
    rng = torch.Generator()
    rng.manual_seed(seed)
    buckets: list[list[int]] = [[] for _ in range(len(fractions))]
    for members in groups.values():
        order = torch.randperm(len(members), generator=rng).tolist()
        shuffled = [members[i] for i in order]
        for bucket, part in zip(buckets, _cut(shuffled, split_sizes(len(members), fractions))):
            bucket.extend(part)
    return [Subset(dataset, bucket) for bucket in buckets]
