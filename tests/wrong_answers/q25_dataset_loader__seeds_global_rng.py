"""Wrong: seeds the global random state instead of giving the loader its own generator."""

import torch
from torch.utils.data import DataLoader

from solutions.q25_dataset_loader import (  # the rest as in the reference
    SlidingWindows,
    pad_collate,
    throughput_loader,
)


def make_loader(dataset, batch_size, seed, collate_fn=None):
    torch.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, collate_fn=collate_fn)
