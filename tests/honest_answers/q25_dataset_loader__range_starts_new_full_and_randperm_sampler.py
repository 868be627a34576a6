"""A range of starts, padding into new_full, an explicit sampler class,
and one branch per row of the table."""

from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset, Sampler


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        if min(window, stride) < 1:
            raise ValueError("window and stride must both be at least 1")
        self._series = series
        self._window = window
        # s + window <= N - 1  <=>  s < N - window
        self._starts = range(0, series.shape[0] - window, stride)

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        start = self._starts[index]  # a range raises IndexError past the end
        inputs = self._series[start : start + self._window].clone()
        target = self._series[start + self._window].clone()
        return inputs, target


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    first = batch[0][0]
    lengths = torch.zeros(len(batch), dtype=torch.long, device="cpu")
    for i, (sequence, _) in enumerate(batch):
        lengths[i] = sequence.shape[0]
    longest = int(lengths.max())
    padded = first.new_full((len(batch), longest, *first.shape[1:]), padding_value)
    for i, (sequence, _) in enumerate(batch):
        padded[i, : sequence.shape[0]] = sequence
    labels = torch.stack([label for _, label in batch]).to(first.device)
    return padded, lengths, labels


class _SeededPermutation(Sampler[int]):
    """A fresh permutation of range(n) on every pass, drawn from the given generator."""

    def __init__(self, n: int, generator: torch.Generator) -> None:
        self.n = n
        self.generator = generator

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[int]:
        yield from torch.randperm(self.n, generator=self.generator).tolist()


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    generator = torch.Generator().manual_seed(seed)
    sampler = _SeededPermutation(len(dataset), generator)  # type: ignore[arg-type]
    # The loader's own generator also seeds its iterator, away from the global state.
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        collate_fn=collate_fn,
        generator=generator,
    )


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    kind = device.type if isinstance(device, torch.device) else torch.device(device).type
    pin = kind not in {"cpu", "meta"}
    if num_workers == 0:
        return DataLoader(dataset, batch_size=batch_size, pin_memory=pin)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        pin_memory=pin,
        prefetch_factor=prefetch,
        persistent_workers=True,
    )
