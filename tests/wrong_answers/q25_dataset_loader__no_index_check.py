"""Wrong: no range check in __getitem__, so a negative index slices a wrong window (series[-2:1]
for ds[-1] with stride 2) instead of counting from the end or raising IndexError."""

import torch
from torch.utils.data import Dataset

from solutions.q25_dataset_loader import (  # the rest as in the reference
    make_loader,
    pad_collate,
    throughput_loader,
)


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
        start = index * self.stride
        return self.series[start : start + self.window], self.series[start + self.window]
