"""Negative indices refused, padding by torch.full and cat, a sampler shuffled by Python's
own random.Random seeded with the seed's text, worker options from a table."""

import random
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset, Sampler


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        super().__init__()
        for name, value in (("window", window), ("stride", stride)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        self.series, self.window, self.stride = series, window, stride

    def __len__(self) -> int:
        n = self.series.shape[0]
        count = 0
        start = 0
        while start + self.window <= n - 1:
            count += 1
            start += self.stride
        return count

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        if index < 0 or index >= len(self):
            raise IndexError(index)
        s = index * self.stride
        return self.series[s : s + self.window], self.series[s + self.window]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences = [item[0] for item in batch]
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        pad = torch.full(
            (longest - s.shape[0], *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device
        )
        rows.append(torch.cat([s, pad]))
    lengths = torch.tensor([s.shape[0] for s in sequences], dtype=torch.int64, device="cpu")
    return torch.stack(rows), lengths, torch.stack([item[1] for item in batch])


class _PythonShuffle(Sampler[int]):
    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        # Random(int) seeds with abs(seed), so -5 and 5 would shuffle alike; text does not.
        self.rng = random.Random(str(seed))

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[int]:
        order = list(range(self.n))
        self.rng.shuffle(order)
        return iter(order)


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=_PythonShuffle(len(dataset), seed),  # type: ignore[arg-type]
        collate_fn=collate_fn,
        # The loader draws a base seed for its iterator: from this, not the global state.
        generator=torch.Generator().manual_seed(seed),
    )


_WORKER_OPTIONS = {
    False: {},
    True: {"persistent_workers": True},
}


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    with_workers = num_workers > 0
    options: dict[str, Any] = dict(_WORKER_OPTIONS[with_workers])
    if with_workers:
        options["prefetch_factor"] = prefetch
    return DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        pin_memory=torch.device(device).type not in ("cpu", "meta"),
        **options,
    )
