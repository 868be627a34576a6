"""math.floor shares with the remainder dealt by itertools.cycle, random_split for the
random split, and torch.unique's inverse to find each class's indices."""

import itertools
import math
from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def _check_fractions(fractions: Sequence[float]) -> list[float]:
    values = [float(f) for f in fractions]
    if not values:
        raise ValueError("at least one fraction is needed")
    if any(not 0.0 <= f <= 1.0 for f in values):
        raise ValueError(f"fractions must lie in [0, 1]: {values}")
    if not math.isclose(math.fsum(values), 1.0):
        raise ValueError(f"fractions must sum to 1, got {sum(values)}")
    return values


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    values = _check_fractions(fractions)
    sizes = [math.floor(n * f) for f in values]
    leftover = n - sum(sizes)
    for k in itertools.islice(itertools.cycle(range(len(sizes))), leftover):
        sizes[k] += 1
    return sizes


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    generator = torch.Generator().manual_seed(seed)
    return list(random_split(dataset, sizes, generator=generator))


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    if labels.dim() != 1:
        raise ValueError("labels must be 1-D")
    if labels.numel() != len(dataset):  # type: ignore[arg-type]
        raise ValueError("labels and dataset differ in length")
    _check_fractions(fractions)
    generator = torch.Generator().manual_seed(seed)
    classes, inverse = torch.unique(labels.cpu(), return_inverse=True)
    parts: list[list[int]] = [[] for _ in fractions]
    for c in range(len(classes)):
        members = torch.nonzero(inverse == c).flatten()
        shuffled = members[torch.randperm(members.numel(), generator=generator)].tolist()
        start = 0
        for part, size in zip(parts, split_sizes(len(shuffled), fractions)):
            part.extend(shuffled[start : start + size])
            start += size
    return [Subset(dataset, part) for part in parts]
