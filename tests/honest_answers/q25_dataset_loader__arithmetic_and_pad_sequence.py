"""Window count by floor division, pad_sequence, one DataLoader call each."""

from collections.abc import Callable
from typing import Any

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        if window < 1:
            raise ValueError(f"window must be >= 1, got {window}")
        if stride < 1:
            raise ValueError(f"stride must be >= 1, got {stride}")
        self.series = series
        self.window = window
        self.stride = stride

    def __len__(self) -> int:
        last_start = self.series.shape[0] - 1 - self.window
        if last_start < 0:
            return 0
        return last_start // self.stride + 1

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"index out of range for {n} windows")
        start = index * self.stride
        end = start + self.window
        return self.series[start:end], self.series[end]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences = [sequence for sequence, _ in batch]
    labels = torch.stack([label for _, label in batch])
    padded = pad_sequence(sequences, batch_first=True, padding_value=padding_value)
    lengths = torch.tensor([s.shape[0] for s in sequences], dtype=torch.int64, device="cpu")
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
    options: dict[str, Any] = {"pin_memory": accelerator}
    if num_workers > 0:
        options["prefetch_factor"] = prefetch
        options["persistent_workers"] = True
    return DataLoader(
        dataset, batch_size=batch_size, shuffle=False, num_workers=num_workers, **options
    )
