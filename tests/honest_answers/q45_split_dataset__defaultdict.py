"""collections.defaultdict per class, itertools.accumulate for the cut points, math.fsum."""

import collections
import itertools
import math
from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    fractions = list(fractions)
    if not fractions or not math.isclose(math.fsum(fractions), 1.0):
        raise ValueError("fractions must sum to 1")
    if not all(0.0 <= f <= 1.0 for f in fractions):
        raise ValueError("fractions must lie in [0, 1]")
    sizes = [int(n * f) for f in fractions]
    for extra in range(n - sum(sizes)):
        sizes[extra % len(sizes)] += 1
    return sizes


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    return random_split(dataset, sizes, generator=torch.Generator().manual_seed(seed))


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    if labels.ndim != 1 or labels.numel() != len(dataset):  # type: ignore[arg-type]
        raise ValueError("labels must be 1-D with one label per item")
    split_sizes(labels.numel(), fractions)
    generator = torch.Generator().manual_seed(seed)
    members: collections.defaultdict[int, list[int]] = collections.defaultdict(list)
    for index, label in enumerate(labels.tolist()):
        members[label].append(index)
    parts: list[list[int]] = [[] for _ in fractions]
    for label in sorted(members):
        indices = members[label]
        shuffled = [indices[i] for i in torch.randperm(len(indices), generator=generator)]
        cuts = [0, *itertools.accumulate(split_sizes(len(indices), fractions))]
        for part, start, stop in zip(parts, cuts, cuts[1:], strict=False):
            part.extend(shuffled[start:stop])
    return [Subset(dataset, part) for part in parts]
