"""Wrong: seeds a new generator with `seed` for every class, so classes of one size are
shuffled in lockstep (the same positions of each go to each split)."""

import torch
from torch.utils.data import Subset

from solutions.q45_split_dataset import split_dataset, split_sizes


def stratified_split(dataset, labels, fractions, seed):
    if labels.dim() != 1 or len(labels) != len(dataset):
        raise ValueError(f"labels must be 1-D with {len(dataset)} entries")
    split_sizes(len(dataset), fractions)
    by_class = {}
    for index, label in enumerate(labels.tolist()):
        by_class.setdefault(label, []).append(index)
    splits = [[] for _ in fractions]
    for label in sorted(by_class):
        members = by_class[label]
        generator = torch.Generator().manual_seed(seed)
        order = torch.randperm(len(members), generator=generator).tolist()
        start = 0
        for split, size in zip(splits, split_sizes(len(members), fractions), strict=True):
            split.extend(members[i] for i in order[start : start + size])
            start += size
    return [Subset(dataset, indices) for indices in splits]
