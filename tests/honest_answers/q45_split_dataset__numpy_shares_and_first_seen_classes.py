"""Shares computed with NumPy (floor of n * fractions in float64, the remainder dealt by a
divmod over the splits); torch.split of one randperm; classes grouped in order of first
appearance, each shuffled by randperm from the one generator."""

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch.utils.data import Dataset, Subset


def split_sizes(n: int, fractions: Sequence[float]) -> list[int]:
    shares = np.asarray(list(fractions), dtype=np.float64)
    if shares.ndim != 1 or shares.size == 0:
        raise ValueError("give one or more fractions")
    if not bool(np.all((shares >= 0) & (shares <= 1))):
        raise ValueError(f"every fraction must lie in [0, 1], got {list(fractions)}")
    if not math.isclose(sum(float(f) for f in fractions), 1.0):
        raise ValueError(f"fractions must sum to 1, got {list(fractions)}")
    sizes = [math.floor(n * float(f)) for f in shares]
    rounds, extra = divmod(n - sum(sizes), len(sizes))
    bonus = rounds + (np.arange(len(sizes)) < extra)  # whole rounds, then the first `extra`
    return [size + int(b) for size, b in zip(sizes, bonus)]


def split_dataset(dataset: Dataset, fractions: Sequence[float], seed: int) -> list[Subset]:
    sizes = split_sizes(len(dataset), fractions)  # type: ignore[arg-type]
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(sum(sizes), generator=generator)
    return [Subset(dataset, part.tolist()) for part in torch.split(order, sizes)]


def stratified_split(
    dataset: Dataset, labels: torch.Tensor, fractions: Sequence[float], seed: int
) -> list[Subset]:
    if labels.dim() != 1:
        raise ValueError(f"labels must be 1-D, got shape {tuple(labels.shape)}")
    if labels.shape[0] != len(dataset):  # type: ignore[arg-type]
        raise ValueError(f"{labels.shape[0]} labels for {len(dataset)} items")  # type: ignore[arg-type]
    split_sizes(0, fractions)  # the fractions checked even for an empty dataset
    groups: dict[int, list[int]] = {}
    for index, label in enumerate(labels.tolist()):
        groups.setdefault(label, []).append(index)
    generator = torch.Generator().manual_seed(seed)
    parts: list[list[int]] = [[] for _ in fractions]
    for members in groups.values():
        shuffled = torch.tensor(members)[torch.randperm(len(members), generator=generator)]
        pieces = torch.split(shuffled, split_sizes(len(members), fractions))
        for part, piece in zip(parts, pieces):
            part.extend(piece.tolist())
    return [Subset(dataset, part) for part in parts]
