"""Wrong: walks the classes 0 .. labels.max(), so items of a negative class id are never
dealt to any split."""

import torch
from torch.utils.data import Subset

from solutions.q45_split_dataset import split_dataset, split_sizes


def stratified_split(dataset, labels, fractions, seed):
    if labels.dim() != 1 or len(labels) != len(dataset):
        raise ValueError(f"labels must be 1-D with {len(dataset)} entries")
    split_sizes(len(dataset), fractions)
    generator = torch.Generator().manual_seed(seed)
    splits = [[] for _ in fractions]
    for label in range(int(labels.max()) + 1 if len(labels) else 0):
        members = (labels == label).nonzero().flatten().tolist()
        order = torch.randperm(len(members), generator=generator).tolist()
        start = 0
        for split, size in zip(splits, split_sizes(len(members), fractions), strict=True):
            split.extend(members[i] for i in order[start : start + size])
            start += size
    return [Subset(dataset, indices) for indices in splits]
