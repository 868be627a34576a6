"""Wrong: pins every batch, even those that stay on the CPU (a copy that serves nothing)."""

from torch.utils.data import DataLoader

from solutions.q25_dataset_loader import (  # the rest as in the reference
    SlidingWindows,
    make_loader,
    pad_collate,
)


def throughput_loader(dataset, batch_size, device, num_workers, prefetch=2):
    with_workers = (
        {"prefetch_factor": prefetch, "persistent_workers": True} if num_workers > 0 else {}
    )
    return DataLoader(
        dataset, batch_size=batch_size, num_workers=num_workers, pin_memory=True, **with_workers
    )
