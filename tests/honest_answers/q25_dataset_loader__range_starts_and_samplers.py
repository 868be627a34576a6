"""A range of window starts, a preallocated batch, Random/BatchSampler, kwargs."""

from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler


class SlidingWindows(Dataset):
    """Window starts kept as a range, which already does len, negative indices and IndexError."""

    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        if window < 1 or stride < 1:
            raise ValueError(f"window and stride must be >= 1, got {window} and {stride}")
        self.series = series
        self.window = window
        self.starts = range(0, max(series.shape[0] - window, 0), stride)

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        s = self.starts[index]
        return self.series[s : s + self.window], self.series[s + self.window]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Fill a [B, T, *F] tensor with padding_value, then copy each sequence into its row."""
    sequences = [seq for seq, _ in batch]
    first = sequences[0]
    longest = max(seq.shape[0] for seq in sequences)
    padded = torch.full(
        (len(batch), longest, *first.shape[1:]),
        padding_value,
        dtype=first.dtype,
        device=first.device,
    )
    for row, seq in enumerate(sequences):
        padded[row, : seq.shape[0]] = seq
    lengths = torch.tensor([seq.shape[0] for seq in sequences], dtype=torch.int64, device="cpu")
    labels = torch.stack([label for _, label in batch]).to(first.device)
    return padded, lengths, labels


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    """A RandomSampler on a private generator, batched by a BatchSampler."""
    generator = torch.Generator()
    generator.manual_seed(seed)
    sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
    return DataLoader(
        dataset,
        batch_sampler=BatchSampler(sampler, batch_size, drop_last=False),
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
    """Build the keyword arguments for the situation, then pass them through."""
    kwargs: dict[str, Any] = {
        "batch_size": batch_size,
        "shuffle": False,
        "num_workers": num_workers,
        "pin_memory": torch.device(device).type not in {"cpu", "meta"},
    }
    if num_workers > 0:
        kwargs.update(prefetch_factor=prefetch, persistent_workers=True)
    return DataLoader(dataset, **kwargs)
