"""Correct: narrow()-based windows, a preallocated padding buffer, explicit samplers,
and a keyword table for the throughput loader."""

from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        if window < 1 or stride < 1:
            raise ValueError(f"window and stride must be >= 1, got {window} and {stride}")
        self.series, self.window, self.stride = series, window, stride
        span = series.shape[0] - 1 - window  # the last start s must satisfy s <= span
        self._count = span // stride + 1 if span >= 0 else 0

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        i = index + self._count if index < 0 else index
        if not 0 <= i < self._count:
            raise IndexError(f"index {index} out of range for {self._count} windows")
        start = i * self.stride
        return self.series.narrow(0, start, self.window), self.series[start + self.window]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences, labels = zip(*batch)
    lengths = torch.tensor([seq.shape[0] for seq in sequences], dtype=torch.int64, device="cpu")
    first = sequences[0]
    padded = first.new_full((len(sequences), int(lengths.max()), *first.shape[1:]), padding_value)
    for row, seq in zip(padded, sequences):
        row[: seq.shape[0]].copy_(seq)
    return padded, lengths, torch.stack(labels)


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    rng = torch.Generator().manual_seed(seed)
    batches = BatchSampler(RandomSampler(dataset, generator=rng), batch_size, drop_last=False)
    # The loader draws its base seed from `generator` too: hand it the same private one,
    # so that iterating never touches the global generator.
    return DataLoader(dataset, batch_sampler=batches, collate_fn=collate_fn, generator=rng)


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    options: dict[str, Any] = {"pin_memory": torch.device(device).type != "cpu"}
    if num_workers > 0:
        options.update(prefetch_factor=prefetch, persistent_workers=True)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=False,
        num_workers=num_workers,
        **options,
    )
