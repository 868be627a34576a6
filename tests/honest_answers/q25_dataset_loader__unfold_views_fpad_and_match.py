"""Windows as views from Tensor.unfold (the window axis moved back to the front with
movedim), padding by F.pad of each sequence along its first axis and a stack, shuffle=True
with a seeded generator, and the throughput table as a match statement."""

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        super().__init__()
        if window < 1 or stride < 1:
            raise ValueError(f"window and stride must be >= 1, got {window} and {stride}")
        self.series = series
        self.window = window
        self.stride = stride

    def __len__(self) -> int:
        # starts s = i * S with s <= N - 1 - W
        last_start = len(self.series) - 1 - self.window
        return 0 if last_start < 0 else last_start // self.stride + 1

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        count = len(self)
        if not -count <= index < count:
            raise IndexError(f"window {index} out of range for {count} windows")
        index %= count
        # unfold(0, W, S) puts window i at [i] with the window's steps on the last axis.
        windows = self.series.unfold(0, self.window, self.stride)
        start = index * self.stride
        return windows[index].movedim(-1, 0), self.series[start + self.window]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences = [sequence for sequence, _ in batch]
    longest = max(len(sequence) for sequence in sequences)
    padded = torch.stack(
        [
            # F.pad counts its pairs from the last axis: all trailing axes get (0, 0).
            F.pad(
                sequence,
                (0, 0) * (sequence.ndim - 1) + (0, longest - len(sequence)),
                value=padding_value,
            )
            for sequence in sequences
        ]
    )
    lengths = torch.tensor(
        [len(sequence) for sequence in sequences], dtype=torch.int64, device="cpu"
    )
    labels = torch.stack([label for _, label in batch])
    return padded, lengths, labels


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    generator = torch.Generator()
    generator.manual_seed(seed)
    return DataLoader(
        dataset, batch_size=batch_size, shuffle=True, generator=generator, collate_fn=collate_fn
    )


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    accelerator = torch.device(device).type not in ("cpu", "meta")
    match num_workers:
        case 0:
            return DataLoader(dataset, batch_size=batch_size, pin_memory=accelerator)
        case _:
            return DataLoader(
                dataset,
                batch_size=batch_size,
                num_workers=num_workers,
                pin_memory=accelerator,
                prefetch_factor=prefetch,
                persistent_workers=True,
            )
