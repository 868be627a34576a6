"""Wrong: caps num_workers at os.cpu_count(), fewer workers than the caller asked for."""

import os

import torch
from torch.utils.data import DataLoader

from solutions.q25_dataset_loader import SlidingWindows, make_loader, pad_collate  # the rest


def throughput_loader(dataset, batch_size, device, num_workers, prefetch=2):
    num_workers = min(num_workers, os.cpu_count() or 1)
    with_workers = (
        {"prefetch_factor": prefetch, "persistent_workers": True} if num_workers > 0 else {}
    )
    pin = torch.device(device).type not in ("cpu", "meta")
    return DataLoader(
        dataset, batch_size=batch_size, num_workers=num_workers, pin_memory=pin, **with_workers
    )
