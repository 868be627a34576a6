"""random_split written out: one torch.randperm from an own generator, sliced at the running
totals of itertools.accumulate; classes grouped with a boolean mask per torch.unique value."""

import itertools
import math
from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    shares = [float(f) for f in fractions]
    if not shares:
        raise ValueError("fractions must hold at least one number")
    if not all(0.0 <= f <= 1.0 for f in shares):
        raise ValueError(f"every fraction must be in [0, 1], got {shares}")
    if not math.isclose(sum(shares), 1.0):
        raise ValueError(f"fractions must sum to 1, got {sum(shares)}")
    sizes = [math.floor(n * f) for f in shares]
    for k in itertools.islice(itertools.cycle(range(len(sizes))), n - sum(sizes)):
        sizes[k] += 1
    return sizes


def _slices(order: list[int], sizes: list[int]) -> list[list[int]]:
    ends = itertools.accumulate(sizes)
    return [order[end - size : end] for end, size in zip(ends, sizes, strict=True)]


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(sum(sizes), generator=generator).tolist()
    return [Subset(dataset, part) for part in _slices(order, sizes)]


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    n = len(dataset)  # type: ignore[arg-type]
    if labels.dim() != 1:
        raise ValueError(f"labels must be 1-D, got shape {tuple(labels.shape)}")
    if labels.numel() != n:
        raise ValueError(f"{labels.numel()} labels for a dataset of {n} items")
    split_sizes(n, fractions)
    labels = labels.cpu()
    generator = torch.Generator().manual_seed(seed)
    parts: list[list[int]] = [[] for _ in fractions]
    for cls in torch.unique(labels):
        members = torch.nonzero(labels == cls).flatten()
        shuffled = members[torch.randperm(members.numel(), generator=generator)].tolist()
        sizes = split_sizes(len(shuffled), fractions)
        for part, chunk in zip(parts, _slices(shuffled, sizes), strict=True):
            part.extend(chunk)
    return [Subset(dataset, part) for part in parts]
