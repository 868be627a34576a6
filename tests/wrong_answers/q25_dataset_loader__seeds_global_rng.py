"""Wrong: seeds the global random state instead of giving the loader its own generator."""

import torch
from torch.utils.data import DataLoader

from solutions.q25_dataset_loader import SlidingWindows, pad_collate  # the rest as in the reference


def make_loader(dataset, batch_size, seed, collate_fn=None):
    torch.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, collate_fn=collate_fn)
