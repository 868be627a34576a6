"""Window count by floor division with list-style negative indices, padding by hand into
new_full, a RandomSampler holding the seeded generator, and the loader's options as a dict."""

from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset, RandomSampler


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
        return 0 if last_start < 0 else last_start // self.stride + 1

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"window {index} out of range for {n} windows")
        start = index * self.stride
        end = start + self.window
        return self.series[start:end], self.series[end]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences = [seq for seq, _ in batch]
    sizes = [seq.shape[0] for seq in sequences]
    first = sequences[0]
    padded = first.new_full((len(batch), max(sizes), *first.shape[1:]), padding_value)
    for row, (seq, size) in enumerate(zip(sequences, sizes)):
        padded[row, :size] = seq
    lengths = torch.tensor(sizes, dtype=torch.int64, device=torch.device("cpu"))
    labels = torch.stack([label for _, label in batch])
    return padded, lengths, labels


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    generator = torch.Generator()
    generator.manual_seed(seed)
    sampler = RandomSampler(dataset, generator=generator)
    # The loader draws a base seed per epoch too: from its own generator, not the global one.
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        collate_fn=collate_fn,
        num_workers=0,
        generator=generator,
    )


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    options: dict[str, Any] = {
        "batch_size": batch_size,
        "shuffle": False,
        "num_workers": num_workers,
        "pin_memory": torch.device(device).type not in {"cpu", "meta"},
    }
    if num_workers > 0:
        options.update(prefetch_factor=prefetch, persistent_workers=True)
    return DataLoader(dataset, **options)
