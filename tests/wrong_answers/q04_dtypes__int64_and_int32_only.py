"""Wrong: time_bucket accepts only int64 and int32 timestamps, rejecting int16, int8 and
uint8, which are integer tensors too."""

import torch

from solutions.q04_dtypes import nbytes, safe_mean


def time_bucket(timestamps, width):
    if width < 1:
        raise ValueError(f"width must be a positive int, got {width}")
    if timestamps.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"timestamps must be an integer tensor, got {timestamps.dtype}")
    return torch.div(timestamps, width, rounding_mode="floor")
