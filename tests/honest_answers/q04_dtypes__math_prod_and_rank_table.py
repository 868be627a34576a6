"""math.prod and itemsize, iinfo bounds, a NamedTuple/IntEnum promotion table."""

import math
from enum import IntEnum
from typing import NamedTuple

import torch


def nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    """Element count (exact Python int) times the element size."""
    return math.prod(int(d) for d in shape) * dtype.itemsize


def safe_mean(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """Mean in at least float32, converted back once."""
    acc = x.to(torch.promote_types(x.dtype, torch.float32))
    mean = acc.mean() if dim is None else acc.mean(dim=dim)
    return mean.to(x.dtype)


def time_bucket(timestamps: torch.Tensor, width: int) -> torch.Tensor:
    """floor(t / width) in the integer dtype; a width past the dtype's range: bucket 0 or -1."""
    if width < 1:
        raise ValueError(f"width must be positive, got {width}")
    dtype = timestamps.dtype
    if dtype.is_floating_point or dtype.is_complex or dtype == torch.bool:
        raise TypeError(f"timestamps must be an integer tensor, got {dtype}")
    if width > torch.iinfo(dtype).max:
        # Every |t| <= max < width: non-negative values are in bucket 0, negative ones in -1.
        return (timestamps < 0).to(dtype).neg_()
    return torch.floor_divide(timestamps, width)


class Category(IntEnum):
    BOOL = 0
    INTEGER = 1
    FLOATING = 2


class Rank(IntEnum):
    DIMENSIONED = 0
    ZERO_DIM = 1
    NUMBER = 2


class Operand(NamedTuple):
    rank: Rank
    dtype: torch.dtype


def _category(dtype: torch.dtype) -> Category:
    if dtype == torch.bool:
        return Category.BOOL
    return Category.FLOATING if dtype.is_floating_point else Category.INTEGER


def _operand(value: torch.Tensor | bool | int | float) -> Operand:
    if isinstance(value, torch.Tensor):
        return Operand(Rank.ZERO_DIM if value.dim() == 0 else Rank.DIMENSIONED, value.dtype)
    if isinstance(value, bool):
        return Operand(Rank.NUMBER, torch.bool)
    if isinstance(value, int):
        return Operand(Rank.NUMBER, torch.int64)
    return Operand(Rank.NUMBER, torch.get_default_dtype())


def _join(a: torch.dtype, b: torch.dtype) -> torch.dtype:
    """Promotion within one rank."""
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    if a == b:
        return a
    if {a, b} == {torch.uint8, torch.int8}:
        return torch.int16
    if {a, b} == {torch.float16, torch.bfloat16}:
        return torch.float32
    return a if a.itemsize > b.itemsize else b


def result_dtype(
    a: torch.Tensor | bool | int | float,
    b: torch.Tensor | bool | int | float,
    *,
    divide: bool = False,
) -> torch.dtype:
    """Promote within each rank, then let lower ranks in only with a higher category."""
    per_rank: dict[Rank, torch.dtype] = {}
    for op in map(_operand, (a, b)):
        seen = per_rank.get(op.rank)
        per_rank[op.rank] = op.dtype if seen is None else _join(seen, op.dtype)
    result: torch.dtype | None = None
    for rank in sorted(per_rank):
        dtype = per_rank[rank]
        if result is None or _category(dtype) > _category(result):
            result = dtype
    assert result is not None
    if divide and _category(result) < Category.FLOATING:
        return torch.get_default_dtype()
    return result
