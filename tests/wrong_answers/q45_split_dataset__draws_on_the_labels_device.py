"""Wrong: draws each class's order on the labels' device with a CPU generator, which a GPU
refuses ("Expected a 'cuda' device type for generator")."""

import torch
from torch.utils.data import Subset

from solutions.q45_split_dataset import split_dataset, split_sizes  # the rest as in the reference


def stratified_split(dataset, labels, fractions, seed):
    if labels.dim() != 1 or len(labels) != len(dataset):
        raise ValueError(
            f"labels must be 1-D with one entry per item ({len(dataset)}), "
            f"got shape {tuple(labels.shape)}"
        )
    split_sizes(len(dataset), fractions)
    generator = torch.Generator().manual_seed(seed)
    by_class: dict[int, list[int]] = {}
    for index, label in enumerate(labels.tolist()):
        by_class.setdefault(label, []).append(index)
    splits: list[list[int]] = [[] for _ in fractions]
    for label in sorted(by_class):
        members = by_class[label]
        order = torch.randperm(len(members), generator=generator, device=labels.device).tolist()
        start = 0
        for split, size in zip(splits, split_sizes(len(members), fractions), strict=True):
            split.extend(members[i] for i in order[start : start + size])
            start += size
    return [Subset(dataset, indices) for indices in splits]
