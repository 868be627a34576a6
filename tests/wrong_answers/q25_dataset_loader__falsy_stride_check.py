"""Wrong: rejects a stride of 0 (falsy) but not a negative one, which then walks backwards."""

from solutions.q25_dataset_loader import (
    SlidingWindows as Reference,
    make_loader,
    pad_collate,
    throughput_loader,
)


class SlidingWindows(Reference):
    def __init__(self, series, window, stride=1):
        if window < 1 or not stride:
            raise ValueError(f"window must be >= 1 and stride nonzero, got {window}, {stride}")
        self.series, self.window, self.stride = series, window, stride
