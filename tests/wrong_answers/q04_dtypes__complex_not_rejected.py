"""Wrong: time_bucket rejects floating and bool tensors but not complex ones."""

import math

import torch


def nbytes(shape, dtype):
    return math.prod(shape) * dtype.itemsize


def safe_mean(x, dim=None):
    low_precision = x.dtype in (torch.float16, torch.bfloat16)
    acc = x.float() if low_precision else x
    mean = acc.mean() if dim is None else acc.mean(dim)
    return mean.to(x.dtype)


def time_bucket(timestamps, width):
    if width < 1:
        raise ValueError(f"width must be a positive int, got {width}")
    if timestamps.is_floating_point() or timestamps.dtype == torch.bool:
        raise TypeError(f"timestamps must be an integer tensor, got {timestamps.dtype}")
    return torch.div(timestamps, width, rounding_mode="floor")
