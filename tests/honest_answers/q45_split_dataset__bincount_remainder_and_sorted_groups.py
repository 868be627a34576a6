"""Remainder dealt by torch.bincount of arange(left) % k, a split of the generator's own
randperm by Tensor.split, and classes grouped by a stable sort and unique_consecutive counts,
each group shuffled by one shared generator."""

import math
from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    shares = list(fractions)
    if not shares:
        raise ValueError("give at least one fraction")
    if not all(0 <= f <= 1 for f in shares):
        raise ValueError(f"every fraction must lie in [0, 1], got {shares}")
    if not math.isclose(math.fsum(shares), 1):
        raise ValueError(f"fractions must sum to 1, got {shares}")
    floors = torch.tensor([math.floor(n * f) for f in shares], dtype=torch.int64)
    left = n - int(floors.sum())
    extra = torch.bincount(torch.arange(max(left, 0)) % len(shares), minlength=len(shares))
    return (floors + extra).tolist()


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    n = len(dataset)  # type: ignore[arg-type]
    sizes = split_sizes(n, fractions)
    generator = torch.Generator()
    generator.manual_seed(seed)
    # what random_split does: one permutation of all indices, cut in order
    order = torch.randperm(n, generator=generator)
    return [Subset(dataset, part.tolist()) for part in order.split(sizes)]


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    n = len(dataset)  # type: ignore[arg-type]
    if labels.dim() != 1:
        raise ValueError(f"labels must be 1-D, got shape {tuple(labels.shape)}")
    if labels.numel() != n:
        raise ValueError(f"{labels.numel()} labels for a dataset of {n} items")
    split_sizes(n, fractions)  # rejects bad fractions before anything is drawn
    classes = labels.detach().to("cpu", torch.int64)
    ordered, order = torch.sort(classes, stable=True)
    _, counts = torch.unique_consecutive(ordered, return_counts=True)
    generator = torch.Generator().manual_seed(seed)
    parts: list[list[int]] = [[] for _ in fractions]
    for group in order.split(counts.tolist()):
        shuffled = group[torch.randperm(len(group), generator=generator)]
        for part, chunk in zip(parts, shuffled.split(split_sizes(len(group), fractions))):
            part.extend(chunk.tolist())
    return [Subset(dataset, part) for part in parts]
