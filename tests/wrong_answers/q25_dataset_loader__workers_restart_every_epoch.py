"""Wrong: leaves persistent_workers off, so every epoch starts its worker processes again."""

import torch
from torch.utils.data import DataLoader

from solutions.q25_dataset_loader import (  # the rest as in the reference
    SlidingWindows,
    make_loader,
    pad_collate,
)


def throughput_loader(dataset, batch_size, device, num_workers, prefetch=2):
    return DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        pin_memory=torch.device(device).type != "cpu",
        prefetch_factor=prefetch if num_workers > 0 else None,
    )
