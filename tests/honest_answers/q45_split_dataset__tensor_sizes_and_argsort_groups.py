"""Sizes computed on a float64 tensor (floor, then a bincount of the remainder's positions);
classes grouped by a stable argsort and unique_consecutive counts, dealt with tensor_split."""

import math
from collections.abc import Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    if len(fractions) == 0:
        raise ValueError("no fractions given")
    f = torch.tensor([float(x) for x in fractions], dtype=torch.float64)
    if bool(((f < 0) | (f > 1) | f.isnan()).any()):
        raise ValueError(f"fractions must lie in [0, 1]: {list(fractions)}")
    if not math.isclose(math.fsum(f.tolist()), 1.0):
        raise ValueError(f"fractions must sum to 1: {list(fractions)}")
    floors = [math.floor(n * x) for x in f.tolist()]
    left = n - sum(floors)
    extra = torch.arange(left).remainder(len(floors)).bincount(minlength=len(floors))
    return [a + b for a, b in zip(floors, extra.tolist(), strict=True)]


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    generator = torch.Generator()
    generator.manual_seed(seed)
    return random_split(dataset, sizes, generator=generator)


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    if labels.ndim != 1 or labels.shape[0] != len(dataset):  # type: ignore[arg-type]
        raise ValueError(
            f"labels must be 1-D with one label per item, got shape {tuple(labels.shape)}"
        )
    split_sizes(labels.shape[0], fractions)
    labels = labels.to("cpu")
    order = torch.sort(labels, stable=True).indices
    _, counts = torch.unique_consecutive(labels[order], return_counts=True)
    generator = torch.Generator()
    generator.manual_seed(seed)
    chosen: list[list[int]] = [[] for _ in range(len(fractions))]
    for group in torch.split(order, counts.tolist()):
        shuffled = group[torch.randperm(group.numel(), generator=generator)]
        sizes = split_sizes(group.numel(), fractions)
        bounds = torch.tensor(sizes).cumsum(0)[:-1].tolist()
        for k, piece in enumerate(torch.tensor_split(shuffled, bounds)):
            chosen[k] += piece.tolist()
    return [Subset(dataset, indices) for indices in chosen]
