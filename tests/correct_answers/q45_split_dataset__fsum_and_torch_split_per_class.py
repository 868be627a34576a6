"""math.fsum and a modulo for sizes; classes by torch.unique, randperm, then torch.split."""

import math
from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    shares = list(fractions)
    if not shares or not all(0.0 <= f <= 1.0 for f in shares):
        raise ValueError(f"fractions must be numbers in [0, 1], got {shares}")
    if not math.isclose(math.fsum(shares), 1.0):
        raise ValueError(f"fractions must sum to 1, got {math.fsum(shares)}")
    sizes = [math.floor(n * f) for f in shares]
    for extra in range(n - sum(sizes)):
        sizes[extra % len(sizes)] += 1
    return sizes


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    return random_split(dataset, sizes, generator=torch.Generator().manual_seed(seed))


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    count = len(dataset)  # type: ignore[arg-type]
    if labels.dim() != 1 or labels.shape[0] != count:
        raise ValueError(f"labels must be 1-D with {count} entries, not {tuple(labels.shape)}")
    split_sizes(count, fractions)  # the fractions are checked even for an empty dataset
    on_cpu = labels.cpu()
    generator = torch.Generator().manual_seed(seed)
    picked: list[list[int]] = [[] for _ in fractions]
    for label in torch.unique(on_cpu):
        members = torch.nonzero(on_cpu == label).flatten()
        shuffled = members[torch.randperm(members.numel(), generator=generator)]
        sizes = split_sizes(members.numel(), fractions)
        for bucket, part in zip(picked, torch.split(shuffled, sizes), strict=True):
            bucket.extend(part.tolist())
    return [Subset(dataset, indices) for indices in picked]
