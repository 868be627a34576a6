"""Wrong: compares str(device) with "cpu", so "cpu:0" and torch.device("cpu", 0) pin."""

from torch.utils.data import DataLoader

from solutions.q25_dataset_loader import SlidingWindows, make_loader, pad_collate  # the rest


def throughput_loader(dataset, batch_size, device, num_workers, prefetch=2):
    with_workers = (
        {"prefetch_factor": prefetch, "persistent_workers": True} if num_workers > 0 else {}
    )
    return DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        pin_memory=str(device) != "cpu",
        **with_workers,
    )
