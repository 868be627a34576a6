"""Wrong: truncates every share but the last, which takes whatever is left over."""

import math

import torch
from torch.utils.data import Subset, random_split


def split_sizes(n, fractions):
    if not fractions or not math.isclose(sum(fractions), 1):
        raise ValueError("fractions must sum to 1")
    if any(not 0 <= f <= 1 for f in fractions):
        raise ValueError("every fraction must be between 0 and 1")
    sizes = [int(n * f) for f in fractions[:-1]]
    return [*sizes, n - sum(sizes)]


def split_dataset(dataset, fractions, seed):
    sizes = split_sizes(len(dataset), fractions)
    return random_split(dataset, sizes, generator=torch.Generator().manual_seed(seed))


def stratified_split(dataset, labels, fractions, seed):
    if labels.dim() != 1 or len(labels) != len(dataset):
        raise ValueError("labels must be 1-D with one entry per item")
    split_sizes(len(dataset), fractions)
    generator = torch.Generator().manual_seed(seed)
    by_class = {}
    for index, label in enumerate(labels.tolist()):
        by_class.setdefault(label, []).append(index)
    splits = [[] for _ in fractions]
    for label in sorted(by_class):
        members = by_class[label]
        order = torch.randperm(len(members), generator=generator).tolist()
        start = 0
        for split, size in zip(splits, split_sizes(len(members), fractions), strict=True):
            split.extend(members[i] for i in order[start : start + size])
            start += size
    return [Subset(dataset, indices) for indices in splits]
