"""Kata 45: train / validation / test splits (reference answer)."""

import math
from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    if not fractions or not math.isclose(sum(fractions), 1):
        raise ValueError(f"fractions must sum to 1, got {list(fractions)}")
    if any(not 0 <= f <= 1 for f in fractions):
        raise ValueError(f"every fraction must be between 0 and 1, got {list(fractions)}")
    sizes = [math.floor(n * f) for f in fractions]
    # Flooring loses fewer than len(fractions) items; hand them out round-robin.
    for i in range(n - sum(sizes)):
        sizes[i % len(sizes)] += 1
    return sizes


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    # Sizes, not fractions: random_split rejects a float sum just above 1 that isclose
    # accepts, and warns about empty splits.
    sizes = split_sizes(len(dataset), fractions)
    # A private generator: reproducible, and independent of whatever else draws numbers.
    generator = torch.Generator().manual_seed(seed)
    return random_split(dataset, sizes, generator=generator)


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    if labels.dim() != 1 or len(labels) != len(dataset):
        raise ValueError(
            f"labels must be 1-D with one entry per item ({len(dataset)}), "
            f"got shape {tuple(labels.shape)}"
        )
    split_sizes(len(dataset), fractions)
    generator = torch.Generator().manual_seed(seed)
    by_class: dict[int, list[int]] = {}
    for index, label in enumerate(labels.tolist()):  # one transfer, then plain Python
        by_class.setdefault(label, []).append(index)
    splits: list[list[int]] = [[] for _ in fractions]
    for label in sorted(by_class):  # a fixed class order keeps the result reproducible
        members = by_class[label]
        order = torch.randperm(len(members), generator=generator).tolist()
        start = 0
        for split, size in zip(splits, split_sizes(len(members), fractions), strict=True):
            split.extend(members[i] for i in order[start : start + size])
            start += size
    return [Subset(dataset, indices) for indices in splits]
