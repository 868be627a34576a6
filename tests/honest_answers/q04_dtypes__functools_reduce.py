"""functools.reduce with operator.mul for the element count, a dtype table, floor_divide."""

import functools
import operator

import torch

_LOW = frozenset({torch.float16, torch.bfloat16})


def nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    count = functools.reduce(operator.mul, shape, 1)
    bits = torch.finfo(dtype).bits if dtype.is_floating_point else None
    size = bits // 8 if bits is not None else torch.empty((), dtype=dtype).element_size()
    return count * size


def safe_mean(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    wide = x.to(torch.float32) if x.dtype in _LOW else x
    reduced = wide.mean() if dim is None else wide.mean(dim=dim)
    return reduced.to(dtype=x.dtype)


def time_bucket(timestamps: torch.Tensor, width: int) -> torch.Tensor:
    if not width >= 1:
        raise ValueError("width must be at least 1")
    if (
        timestamps.dtype.is_floating_point
        or timestamps.dtype in (torch.bool,)
        or (timestamps.dtype.is_complex)
    ):
        raise TypeError("timestamps must hold integers")
    if width > torch.iinfo(timestamps.dtype).max:
        return torch.where(timestamps < 0, -1, 0).to(timestamps.dtype)
    return torch.floor_divide(timestamps, width)
