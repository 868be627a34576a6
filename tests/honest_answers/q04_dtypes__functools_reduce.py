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


# Promotion by hand: (rank, dtype) of each operand, rank 2 for tensors with dimensions,
# 1 for 0-dim tensors, 0 for Python numbers.
_SPECIAL = {
    frozenset({torch.uint8, torch.int8}): torch.int16,
    frozenset({torch.float16, torch.bfloat16}): torch.float32,
}


def _kind(dtype: torch.dtype) -> int:
    if dtype == torch.bool:
        return 0
    return 2 if dtype.is_floating_point else 1


def _join(x: torch.dtype, y: torch.dtype) -> torch.dtype:
    if x == y:
        return x
    if _kind(x) != _kind(y):
        return x if _kind(x) > _kind(y) else y
    if frozenset({x, y}) in _SPECIAL:
        return _SPECIAL[frozenset({x, y})]
    if torch.uint8 in (x, y):
        return y if x == torch.uint8 else x
    return x if x.itemsize >= y.itemsize else y


def _rank_and_dtype(value: torch.Tensor | bool | int | float) -> tuple[int, torch.dtype]:
    if isinstance(value, torch.Tensor):
        return (2 if value.dim() else 1), value.dtype
    if isinstance(value, bool):
        return 0, torch.bool
    if isinstance(value, int):
        return 0, torch.int64
    return 0, torch.get_default_dtype()


def result_dtype(
    a: torch.Tensor | bool | int | float,
    b: torch.Tensor | bool | int | float,
    *,
    divide: bool = False,
) -> torch.dtype:
    (high_rank, high), (low_rank, low) = sorted(
        (_rank_and_dtype(a), _rank_and_dtype(b)), key=operator.itemgetter(0), reverse=True
    )
    widens = high_rank == low_rank or _kind(low) > _kind(high)
    out = _join(high, low) if widens else high
    return torch.get_default_dtype() if divide and not out.is_floating_point else out
