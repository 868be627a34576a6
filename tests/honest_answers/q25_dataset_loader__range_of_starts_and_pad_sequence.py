"""A range object of window starts (its indexing does the bounds), pad_sequence with
batch_first, shuffle=True with a generator, and the loader's table as one conditional call."""

from collections.abc import Callable
from typing import Any

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

_HOST_TYPES = ("cpu", "meta")


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        super().__init__()
        if min(window, stride) < 1:
            raise ValueError("window and stride must both be at least 1")
        self._series = series
        self._window = window
        # Starts s with s + window <= N - 1, that is s < N - window.
        self._starts = range(0, max(series.size(0) - window, 0), stride)

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        start = self._starts[index]  # range raises IndexError past either end
        stop = start + self._window
        return self._series[start:stop], self._series[stop]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences, labels = zip(*batch)
    padded = pad_sequence(list(sequences), batch_first=True, padding_value=padding_value)
    lengths = torch.tensor([len(s) for s in sequences], dtype=torch.long, device="cpu")
    return padded, lengths, torch.stack(labels)


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        collate_fn=collate_fn,
        generator=torch.Generator().manual_seed(seed),
    )


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    accelerator = torch.device(device).type not in _HOST_TYPES
    workers = num_workers > 0
    return DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        pin_memory=accelerator,
        prefetch_factor=prefetch if workers else None,
        persistent_workers=workers,
    )
