"""A dataclass Dataset (eq=False) whose windows are as_strided views at the window's offset,
padding by one boolean-mask assignment of the concatenated sequences, a SubsetRandomSampler
and the loader sharing the seeded generator, the worker options as conditional kwargs."""

import dataclasses
import operator
from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset, SubsetRandomSampler


@dataclasses.dataclass(eq=False)
class SlidingWindows(Dataset):
    series: torch.Tensor
    window: int
    stride: int = 1

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ValueError(f"window must be >= 1, got {self.window}")
        if self.stride < 1:
            raise ValueError(f"stride must be >= 1, got {self.stride}")

    def __len__(self) -> int:
        steps = self.series.shape[0]
        if steps <= self.window:
            return 0
        return (steps - 1 - self.window) // self.stride + 1

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        index = operator.index(index)
        if index < 0 or index >= len(self):
            raise IndexError(f"index {index} out of range for {len(self)} windows")
        series = self.series
        start = index * self.stride
        window = series.as_strided(
            (self.window, *series.shape[1:]),
            series.stride(),
            series.storage_offset() + start * series.stride(0),
        )
        return window, series[start + self.window]


def pad_collate(
    batch: list[tuple[torch.Tensor, torch.Tensor]], padding_value: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    sequences, labels = zip(*batch, strict=True)
    lengths = torch.as_tensor([s.shape[0] for s in sequences], device=torch.device("cpu"))
    first = sequences[0]
    longest = int(lengths.max())
    padded = first.new_full((len(sequences), longest, *first.shape[1:]), padding_value)
    # Row i of the mask is True on its first L_i steps; a boolean-mask assignment fills the
    # True places in row-major order, which is the order of the concatenated sequences.
    steps = torch.arange(longest, device=first.device)
    padded[steps < lengths.to(first.device).unsqueeze(1)] = torch.cat(sequences)
    return padded, lengths.long(), torch.cat([label.unsqueeze(0) for label in labels])


def make_loader(
    dataset: Dataset, batch_size: int, seed: int, collate_fn: Callable[[list], Any] | None = None
) -> DataLoader:
    generator = torch.Generator(device="cpu").manual_seed(seed)
    sampler = SubsetRandomSampler(range(len(dataset)), generator=generator)  # type: ignore[arg-type]
    # The loader gets the generator too: without one it draws each iterator's base seed from
    # torch's global generator.
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
    kind = torch.device(device).type
    workers: dict[str, Any] = (
        {"prefetch_factor": prefetch, "persistent_workers": True} if num_workers > 0 else {}
    )
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=False,
        num_workers=num_workers,
        pin_memory=kind not in {"cpu", "meta"},
        **workers,
    )
