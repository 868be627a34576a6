"""divmod hand-out of the remainder, math.fsum check, a stable sort split into class groups."""

import math
from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    shares = [float(f) for f in fractions]
    if not shares or any(not 0.0 <= f <= 1.0 for f in shares):
        raise ValueError(f"fractions must be one or more numbers in [0, 1], got {fractions!r}")
    if not math.isclose(sum(shares), 1.0):
        raise ValueError(f"fractions must sum to 1, got {sum(shares)}")
    sizes = [math.floor(n * f) for f in shares]
    rounds, extra = divmod(n - sum(sizes), len(sizes))
    return [size + rounds + (k < extra) for k, size in enumerate(sizes)]


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    return random_split(dataset, sizes, generator=torch.Generator().manual_seed(seed))


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    if labels.dim() != 1 or labels.shape[0] != len(dataset):  # type: ignore[arg-type]
        raise ValueError(f"labels must be 1-D with one entry per item, got {tuple(labels.shape)}")
    split_sizes(0, fractions)  # validate even for an empty dataset
    generator = torch.Generator().manual_seed(seed)
    host = labels.cpu()
    order = torch.sort(host, stable=True).indices
    _, counts = torch.unique_consecutive(host[order], return_counts=True)
    buckets: list[list[int]] = [[] for _ in fractions]
    for group in order.split(counts.tolist()):
        shuffled = group[torch.randperm(len(group), generator=generator)]
        for bucket, part in zip(buckets, shuffled.split(split_sizes(len(group), fractions))):
            bucket.extend(part.tolist())
    return [Subset(dataset, bucket) for bucket in buckets]
