"""Correct: a loop for the element count, mean(dtype=float32) for low precision, and a
truncating division corrected by the remainder's sign."""

import torch

_LOW = (torch.float16, torch.bfloat16)


def nbytes(shape, dtype):
    count = 1
    for size in shape:
        count *= int(size)
    return count * dtype.itemsize


def safe_mean(x, dim=None):
    kwargs = {"dtype": torch.float32} if x.dtype in _LOW else {}
    mean = torch.mean(x, **kwargs) if dim is None else torch.mean(x, dim, **kwargs)
    return mean.to(x.dtype)


def time_bucket(timestamps, width):
    if width < 1:
        raise ValueError("width must be >= 1")
    dtype = timestamps.dtype
    if dtype.is_floating_point or dtype.is_complex or dtype == torch.bool:
        raise TypeError(f"integer timestamps expected, got {dtype}")
    if width > torch.iinfo(dtype).max:
        return -(timestamps < 0).to(dtype) if dtype != torch.uint8 else torch.zeros_like(timestamps)
    quotient = torch.div(timestamps, width, rounding_mode="trunc")
    remainder = timestamps - quotient * width
    return quotient - (remainder < 0).to(dtype)
