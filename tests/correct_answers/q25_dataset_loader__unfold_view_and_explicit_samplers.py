"""Windows by Tensor.unfold, padding by new_full, explicit samplers, settings as **kwargs."""

from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler

# Device types that hold no data to copy to: pinning serves neither.
_HOST_LIKE = frozenset({"cpu", "meta"})


class SlidingWindows(Dataset):
    def __init__(self, series: torch.Tensor, window: int, stride: int = 1) -> None:
        if window < 1 or stride < 1:
            raise ValueError(f"window and stride must be >= 1, got {window} and {stride}")
        self.series = series
        self.window = window
        self.stride = stride
        inputs = series[:-1]  # the last step can only be a target
        if inputs.shape[0] >= window:
            # [count, *F, W] -> [count, W, *F]: window k is windows[k], a view of series.
            self.windows = inputs.unfold(0, window, stride).movedim(-1, 1)
        else:
            self.windows = series.new_empty((0, window, *series.shape[1:]))

    def __len__(self) -> int:
        return self.windows.shape[0]

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        count = len(self)
        if not -count <= index < count:
            raise IndexError(f"window {index} of {count}")
        index %= count
        return self.windows[index], self.series[index * self.stride + self.window]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences = [sequence for sequence, _ in batch]
    sizes = [sequence.shape[0] for sequence in sequences]
    first = sequences[0]
    padded = first.new_full((len(batch), max(sizes), *first.shape[1:]), padding_value)
    for row, (sequence, size) in enumerate(zip(sequences, sizes, strict=True)):
        padded[row, :size] = sequence
    lengths = torch.tensor(sizes, dtype=torch.int64, device="cpu")
    labels = torch.stack([label for _, label in batch])
    return padded, lengths, labels


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    generator = torch.Generator().manual_seed(seed)
    batches = BatchSampler(
        RandomSampler(dataset, generator=generator), batch_size=batch_size, drop_last=False
    )
    # The loader's own generator too: each iterator draws a base seed from it.
    return DataLoader(dataset, batch_sampler=batches, collate_fn=collate_fn, generator=generator)


def throughput_loader(
    dataset: Dataset,
    batch_size: int,
    device: torch.device | str,
    num_workers: int,
    prefetch: int = 2,
) -> DataLoader:
    settings: dict[str, Any] = {"pin_memory": torch.device(device).type not in _HOST_LIKE}
    if num_workers > 0:
        settings.update(prefetch_factor=prefetch, persistent_workers=True)
    return DataLoader(
        dataset, batch_size=batch_size, shuffle=False, num_workers=num_workers, **settings
    )
