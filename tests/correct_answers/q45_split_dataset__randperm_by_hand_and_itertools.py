"""Correct: random_split written out, one randperm from a private generator cut at
itertools.accumulate offsets; per class, nonzero indices shuffled by the same generator."""

import itertools
import math

import torch
from torch.utils.data import Subset


def split_sizes(n, fractions):
    fractions = list(fractions)
    if not fractions:
        raise ValueError("give at least one fraction")
    if any(not 0 <= f <= 1 for f in fractions):
        raise ValueError(f"every fraction must lie in [0, 1], got {fractions}")
    if not math.isclose(math.fsum(fractions), 1):
        raise ValueError(f"the fractions must sum to 1, got {math.fsum(fractions)}")
    sizes = [math.floor(n * f) for f in fractions]
    for k in itertools.islice(itertools.cycle(range(len(sizes))), n - sum(sizes)):
        sizes[k] += 1
    return sizes


def _cut(order, sizes):
    ends = list(itertools.accumulate(sizes))
    return [order[end - size : end] for size, end in zip(sizes, ends, strict=True)]


def split_dataset(dataset, fractions, seed):
    sizes = split_sizes(len(dataset), fractions)
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(sum(sizes), generator=generator).tolist()
    return [Subset(dataset, part) for part in _cut(order, sizes)]


def stratified_split(dataset, labels, fractions, seed):
    split_sizes(0, fractions)  # rejects bad fractions before anything else
    if labels.dim() != 1 or labels.shape[0] != len(dataset):
        raise ValueError(
            f"labels must be 1-D with {len(dataset)} entries, got shape {tuple(labels.shape)}"
        )
    labels = labels.cpu()
    generator = torch.Generator().manual_seed(seed)
    parts = [[] for _ in fractions]
    for cls in torch.unique(labels).tolist():
        members = torch.nonzero(labels == cls).flatten()
        shuffled = members[torch.randperm(members.numel(), generator=generator)].tolist()
        for part, piece in zip(
            parts, _cut(shuffled, split_sizes(len(shuffled), fractions)), strict=True
        ):
            part.extend(piece)
    return [Subset(dataset, part) for part in parts]
