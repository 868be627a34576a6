"""Correct: the leftovers added as booleans, splits sliced from a seeded randperm by hand, and
every class dealt in the order of one permutation of all items."""

import itertools
import math

import torch
from torch.utils.data import Subset


def split_sizes(n, fractions):
    fractions = list(fractions)
    if not fractions or min(fractions) < 0 or max(fractions) > 1:
        raise ValueError("fractions must each lie in [0, 1]")
    if not math.isclose(sum(fractions), 1):
        raise ValueError("fractions must sum to 1")
    sizes = [int(n * f // 1) for f in fractions]
    rounds, left = divmod(n - sum(sizes), len(sizes))  # a sum just under 1 may leave many
    return [size + rounds + (k < left) for k, size in enumerate(sizes)]


def _deal(order, sizes):
    ends = list(itertools.accumulate(sizes))
    return [order[end - size : end] for size, end in zip(sizes, ends)]


def split_dataset(dataset, fractions, seed):
    sizes = split_sizes(len(dataset), fractions)
    order = torch.randperm(len(dataset), generator=torch.Generator().manual_seed(seed)).tolist()
    return [Subset(dataset, part) for part in _deal(order, sizes)]


def stratified_split(dataset, labels, fractions, seed):
    """One seeded permutation of every item; each class dealt in the order it gives."""
    if labels.ndim != 1 or labels.shape[0] != len(dataset):
        raise ValueError("labels must be 1-D, one per item")
    split_sizes(len(dataset), fractions)
    order = torch.randperm(len(dataset), generator=torch.Generator().manual_seed(seed))
    shuffled = labels.cpu()[order]
    parts = [[] for _ in fractions]
    for value in torch.unique(shuffled):
        members = order[shuffled == value].tolist()
        for part, piece in zip(parts, _deal(members, split_sizes(len(members), fractions))):
            part += piece
    return [Subset(dataset, part) for part in parts]
