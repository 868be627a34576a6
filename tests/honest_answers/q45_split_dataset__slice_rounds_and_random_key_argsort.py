"""Remainder handed out by one slice-assignment per round over a list; random_split itself with
the sizes; classes found by a stable sort and unique_consecutive, each group shuffled by
argsort of random keys drawn from the one generator."""

import math
from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    fractions = list(fractions)
    if not fractions:
        raise ValueError("no fractions")
    if any(not 0 <= f <= 1 for f in fractions):
        raise ValueError(f"fractions must each be in [0, 1]: {fractions}")
    if not math.isclose(sum(fractions), 1):
        raise ValueError(f"fractions must sum to 1: {fractions} sum to {sum(fractions)}")
    sizes = [math.floor(n * f) for f in fractions]
    left = n - sum(sizes)
    k = len(sizes)
    while left > 0:
        take = min(left, k)
        sizes[:take] = [s + 1 for s in sizes[:take]]
        left -= take
    return sizes


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    return random_split(dataset, sizes, generator=torch.Generator().manual_seed(seed))


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    n = len(dataset)  # type: ignore[arg-type]
    if labels.ndim != 1 or labels.numel() != n:
        raise ValueError(f"labels must be 1-D with {n} entries, got shape {tuple(labels.shape)}")
    split_sizes(n, fractions)
    cpu = labels.detach().cpu().to(torch.int64)
    sorted_labels, order = torch.sort(cpu, stable=True)
    _, counts = torch.unique_consecutive(sorted_labels, return_counts=True)
    g = torch.Generator().manual_seed(seed)
    out: list[list[int]] = [[] for _ in fractions]
    for group in torch.split(order, counts.tolist()):
        keys = torch.rand(len(group), generator=g, dtype=torch.float64)
        shuffled = group[torch.argsort(keys)]
        start = 0
        for k, size in enumerate(split_sizes(len(group), fractions)):
            out[k] += shuffled[start : start + size].tolist()
            start += size
    return [Subset(dataset, indices) for indices in out]
