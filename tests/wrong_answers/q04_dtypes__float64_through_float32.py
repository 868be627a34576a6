"""Wrong: safe_mean averages every dtype in float32, so float64 keeps its dtype but loses
its precision."""

import math

import torch


def nbytes(shape, dtype):
    return math.prod(shape) * dtype.itemsize


def safe_mean(x, dim=None):
    acc = x.float()
    mean = acc.mean() if dim is None else acc.mean(dim)
    return mean.to(x.dtype)


def time_bucket(timestamps, width):
    if width < 1:
        raise ValueError(f"width must be a positive int, got {width}")
    if timestamps.is_floating_point() or timestamps.is_complex() or timestamps.dtype == torch.bool:
        raise TypeError(f"timestamps must be an integer tensor, got {timestamps.dtype}")
    return torch.div(timestamps, width, rounding_mode="floor")
