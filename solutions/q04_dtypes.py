"""Kata 4: dtypes decide memory, range and exactness (reference answer)."""

import math

import torch


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
    if width > torch.iinfo(timestamps.dtype).max:
        # torch would convert the width to the dtype, where it wraps. Every value is
        # smaller than such a width in magnitude: bucket 0, or -1 before the epoch.
        return torch.where(timestamps < 0, -1, 0).to(timestamps.dtype)
    # rounding_mode="floor" divides in the integer dtype: exact for every int64 value and
    # rounds negatives down. Plain `/` would go through float and lose the low digits.
    return torch.div(timestamps, width, rounding_mode="floor")


def _category(dtype: torch.dtype) -> int:
    return 0 if dtype == torch.bool else 2 if dtype.is_floating_point else 1


def _promote(x: torch.dtype, y: torch.dtype) -> torch.dtype:
    """The dtype that two operands of the same rank compute in."""
    if _category(x) != _category(y):
        return max(x, y, key=_category)  # the higher category wins, whatever the widths
    if {x, y} == {torch.uint8, torch.int8}:
        return torch.int16  # neither holds the other's range
    if {x, y} == {torch.float16, torch.bfloat16}:
        return torch.float32  # one has the range, the other the precision
    if torch.uint8 in (x, y) and x != y:
        return x if y == torch.uint8 else y  # a signed type wider than uint8 holds it
    return max(x, y, key=lambda dtype: dtype.itemsize)


def _dtype_of(operand: torch.Tensor | bool | int | float) -> tuple[int, torch.dtype]:
    """(rank, dtype): tensors with dimensions first, then 0-dim tensors, then numbers."""
    if isinstance(operand, torch.Tensor):
        return (0 if operand.dim() > 0 else 1), operand.dtype
    if isinstance(operand, bool):  # before int: a bool is an int in Python
        return 2, torch.bool
    if isinstance(operand, int):
        return 2, torch.int64
    return 2, torch.get_default_dtype()


def result_dtype(
    a: torch.Tensor | bool | int | float,
    b: torch.Tensor | bool | int | float,
    *,
    divide: bool = False,
) -> torch.dtype:
    (rank_a, dtype_a), (rank_b, dtype_b) = sorted((_dtype_of(a), _dtype_of(b)), key=lambda o: o[0])
    if rank_a == rank_b or _category(dtype_b) > _category(dtype_a):
        result = _promote(dtype_a, dtype_b)
    else:
        result = dtype_a  # a lower-ranked operand of no higher category does not widen it
    if divide and _category(result) < 2:
        return torch.get_default_dtype()  # true division of integers gives a float
    return result
