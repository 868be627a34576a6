"""Correct: time_bucket divides in int64 and casts back to the timestamps' dtype."""

import math

import torch

from solutions.q04_dtypes import result_dtype  # as in the reference


def nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    # dtype.itemsize is the size of one element; nothing is allocated.
    return math.prod(shape) * dtype.itemsize


def safe_mean(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    # Accumulate low-precision floats in float32 (range and precision), then round once.
    low_precision = x.dtype in (torch.float16, torch.bfloat16)
    acc = x.float() if low_precision else x  # .float() is a new tensor: x stays as it was
    mean = acc.mean() if dim is None else acc.mean(dim)
    return mean.to(x.dtype)


def time_bucket(timestamps: torch.Tensor, width: int) -> torch.Tensor:
    if width < 1:
        raise ValueError(f"width must be a positive int, got {width}")
    if timestamps.is_floating_point() or timestamps.is_complex() or timestamps.dtype == torch.bool:
        raise TypeError(f"timestamps must be an integer tensor, got {timestamps.dtype}")
    if width > torch.iinfo(torch.int64).max:
        # torch would convert the width to the dtype, where it wraps. Every value is
        # smaller than such a width in magnitude: bucket 0, or -1 before the epoch.
        return torch.where(timestamps < 0, -1, 0).to(timestamps.dtype)
    # rounding_mode="floor" divides in the integer dtype: exact for every int64 value and
    # rounds negatives down. Plain `/` would go through float and lose the low digits.
    return torch.div(timestamps.long(), width, rounding_mode="floor").to(timestamps.dtype)
