"""A Dataset with super().__init__(), private state, negative indices, padding by hand."""

from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        super().__init__()
        if window < 1 or stride < 1:
            raise ValueError("window and stride must both be at least 1")
        self.series, self.window, self.stride = series, window, stride
        room = len(series) - 1 - window
        self._count = room // stride + 1 if room >= 0 else 0

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(f"index {index} out of range")
        start = index * self.stride
        return self.series[start : start + self.window], self.series[start + self.window]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences = [sequence for sequence, _ in batch]
    labels = torch.stack([label for _, label in batch])
    longest = max(sequence.shape[0] for sequence in sequences)
    first = sequences[0]
    padded = first.new_full((len(sequences), longest, *first.shape[1:]), padding_value)
    for i, sequence in enumerate(sequences):
        padded[i, : sequence.shape[0]] = sequence
    lengths = torch.tensor([s.shape[0] for s in sequences], dtype=torch.int64, device="cpu")
    return padded, lengths, labels


def make_loader(
    dataset: Dataset,
    batch_size: int,
    seed: int,
    collate_fn: Callable[[list], Any] | None = None,
) -> DataLoader:
    generator = torch.Generator()
    generator.manual_seed(seed)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        generator=generator,
        collate_fn=collate_fn,
        num_workers=0,
    )


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    accelerator = torch.device(device).type not in ("cpu", "meta")
    extra: dict[str, Any] = {}
    if num_workers > 0:
        extra["prefetch_factor"] = prefetch
        extra["persistent_workers"] = True
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=False,
        num_workers=num_workers,
        pin_memory=accelerator,
        **extra,
    )
