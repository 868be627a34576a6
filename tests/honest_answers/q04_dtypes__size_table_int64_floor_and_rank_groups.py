"""A size table with an element_size fallback, a float32 sum divided by the count, int64
floor division with Python's // semantics, and promotion grouped by rank with functools.reduce."""

from __future__ import annotations

import functools
import itertools
import operator

import torch

_BYTES = {
    torch.bool: 1,
    torch.uint8: 1,
    torch.int8: 1,
    torch.int16: 2,
    torch.int32: 4,
    torch.int64: 8,
    torch.float16: 2,
    torch.bfloat16: 2,
    torch.float32: 4,
    torch.float64: 8,
}
_INT_ORDER = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
_FLOAT_ORDER = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


def nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    per_element = _BYTES.get(dtype)
    if per_element is None:
        per_element = torch.empty(0, dtype=dtype).element_size()
    return functools.reduce(operator.mul, map(int, shape), 1) * per_element


def safe_mean(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    if x.dtype not in (torch.float16, torch.bfloat16):
        return torch.mean(x) if dim is None else torch.mean(x, dim=dim)
    if dim is None:
        total, count = torch.sum(x, dtype=torch.float32), x.numel()
    else:
        total, count = torch.sum(x, dim=dim, dtype=torch.float32), x.shape[dim]
    return (total / count).to(dtype=x.dtype)


def time_bucket(timestamps: torch.Tensor, width: int) -> torch.Tensor:
    dtype = timestamps.dtype
    if dtype.is_floating_point or dtype.is_complex or dtype is torch.bool:
        raise TypeError("time_bucket needs integer timestamps")
    if width < 1:
        raise ValueError("width must be positive")
    if width > torch.iinfo(torch.int64).max:
        return (
            (timestamps < 0).to(dtype).neg_()
            if dtype != torch.uint8
            else timestamps.new_zeros(timestamps.shape)
        )
    # Widen to int64 so the divisor is representable, then narrow back: the quotient has
    # a magnitude no larger than the timestamp's, so it fits the original dtype.
    return (timestamps.to(torch.int64) // width).to(dtype)


def _kind(dtype: torch.dtype) -> int:
    return 0 if dtype is torch.bool else (2 if dtype.is_floating_point else 1)


def _promote(a: torch.dtype, b: torch.dtype) -> torch.dtype:
    if _kind(a) != _kind(b):
        return max(a, b, key=_kind)
    if {a, b} == {torch.uint8, torch.int8}:
        return torch.int16
    if {a, b} == {torch.float16, torch.bfloat16}:
        return torch.float32
    order = _FLOAT_ORDER if _kind(a) == 2 else _INT_ORDER
    return max(a, b, key=order.index)


def _rank_and_dtype(value: object) -> tuple[int, torch.dtype]:
    if isinstance(value, torch.Tensor):
        return (1 if value.ndim == 0 else 0), value.dtype
    if type(value) is bool:
        return 2, torch.bool
    if isinstance(value, int):
        return 2, torch.int64
    if isinstance(value, float):
        return 2, torch.get_default_dtype()
    raise TypeError(f"unsupported operand {value!r}")


def result_dtype(
    a: torch.Tensor | bool | int | float,
    b: torch.Tensor | bool | int | float,
    *,
    divide: bool = False,
) -> torch.dtype:
    described = sorted(map(_rank_and_dtype, (a, b)), key=operator.itemgetter(0))
    result: torch.dtype | None = None
    for _, group in itertools.groupby(described, key=operator.itemgetter(0)):
        joined = functools.reduce(_promote, (d for _, d in group))
        if result is None or _kind(joined) > _kind(result):
            result = joined
    assert result is not None
    if divide and _kind(result) < 2:
        result = torch.get_default_dtype()
    return result
