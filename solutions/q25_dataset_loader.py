"""Kata 25: a Dataset, a collate_fn and a seeded DataLoader (reference answer)."""

from collections.abc import Callable
from typing import Any

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        if window < 1 or stride < 1:
            raise ValueError(f"window and stride must be >= 1, got {window} and {stride}")
        # Keep a reference only: windows are sliced lazily, one sample at a time.
        self.series, self.window, self.stride = series, window, stride

    def __len__(self) -> int:
        # Starts s = 0, S, 2S, ... with s + W <= N - 1: the target series[s + W] must exist.
        last_start = len(self.series) - 1 - self.window
        return last_start // self.stride + 1 if last_start >= 0 else 0

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        # Slicing never fails past the end, so check explicitly: an IndexError is also what
        # ends Python's fallback iteration (`for sample in dataset`).
        if not 0 <= index < len(self):
            raise IndexError(f"window {index} out of range for {len(self)} windows")
        start = index * self.stride
        return self.series[start : start + self.window], self.series[start + self.window]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences, labels = zip(*batch, strict=True)
    # batch_first=True gives [B, T, *F]; the default would be time-major [T, B, *F].
    padded = pad_sequence(list(sequences), batch_first=True, padding_value=padding_value)
    # device="cpu" whatever the default device: pack_padded_sequence wants lengths on the CPU.
    lengths = torch.tensor([len(s) for s in sequences], dtype=torch.int64, device="cpu")
    return padded, lengths, torch.stack(labels)


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    # A private generator: the shuffle depends on the seed only, and it advances from one
    # epoch to the next, so each pass is a new (but reproducible) order.
    generator = torch.Generator().manual_seed(seed)
    return DataLoader(
        dataset, batch_size=batch_size, shuffle=True, collate_fn=collate_fn, generator=generator
    )


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    # Pinned batches copy to an accelerator in the background; for the CPU, pinning is waste.
    # meta holds no data: no accelerator, nothing to copy to.
    pin = torch.device(device).type not in ("cpu", "meta")
    # prefetch_factor and persistent_workers mean something only for worker processes, and
    # DataLoader refuses them without any.
    with_workers: dict[str, Any] = (
        {"prefetch_factor": prefetch, "persistent_workers": True} if num_workers > 0 else {}
    )
    return DataLoader(
        dataset, batch_size=batch_size, num_workers=num_workers, pin_memory=pin, **with_workers
    )
