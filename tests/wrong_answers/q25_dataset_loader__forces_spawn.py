"""Wrong: sets multiprocessing_context="spawn" with workers, a start method the caller did not
choose."""

import torch
from torch.utils.data import DataLoader

from solutions.q25_dataset_loader import SlidingWindows, make_loader, pad_collate  # the rest


def throughput_loader(dataset, batch_size, device, num_workers, prefetch=2):
    with_workers = (
        {
            "prefetch_factor": prefetch,
            "persistent_workers": True,
            "multiprocessing_context": "spawn",
        }
        if num_workers > 0
        else {}
    )
    pin = torch.device(device).type not in ("cpu", "meta")
    return DataLoader(
        dataset, batch_size=batch_size, num_workers=num_workers, pin_memory=pin, **with_workers
    )
