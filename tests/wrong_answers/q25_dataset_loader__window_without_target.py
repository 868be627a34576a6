"""Wrong: counts N - window + 1 windows, one too many: the last one has no next value."""

from torch.utils.data import Dataset

from solutions.q25_dataset_loader import (  # the rest as in the reference
    make_loader,
    pad_collate,
    throughput_loader,
)


class SlidingWindows(Dataset):
    def __init__(self, series, window, stride=1):
        if window < 1 or stride < 1:
            raise ValueError("window and stride must be >= 1")
        self.series, self.window, self.stride = series, window, stride

    def __len__(self):
        return max(0, (len(self.series) - self.window) // self.stride + 1)

    def __getitem__(self, index):
        if not 0 <= index < len(self):
            raise IndexError(index)
        start = index * self.stride
        return self.series[start : start + self.window], self.series[start + self.window]
