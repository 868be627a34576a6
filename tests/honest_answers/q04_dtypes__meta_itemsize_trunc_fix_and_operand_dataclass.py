"""Element size from a meta tensor and an object-dtype numpy product; float32 sum over a
count; trunc division corrected by the remainder's sign; promotion from dtype attributes
with a dataclass per operand."""

from dataclasses import dataclass

import numpy as np
import torch


def nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    # a meta tensor has a dtype and no storage: nothing is allocated
    itemsize = torch.empty(0, dtype=dtype, device="meta").element_size()
    return int(np.prod([int(s) for s in shape], dtype=object)) * itemsize


def safe_mean(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    if x.dtype in (torch.float32, torch.float64):
        return x.mean() if dim is None else x.mean(dim)
    wide = x.to(torch.float32)
    if dim is None:
        return (wide.sum() / wide.numel()).to(x.dtype)
    return (wide.sum(dim) / x.shape[dim]).to(x.dtype)


def time_bucket(timestamps: torch.Tensor, width: int) -> torch.Tensor:
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    if not isinstance(timestamps, torch.Tensor) or (
        timestamps.dtype == torch.bool
        or timestamps.dtype.is_floating_point
        or timestamps.dtype.is_complex
    ):
        raise TypeError("timestamps must be an integer tensor")
    if width > torch.iinfo(timestamps.dtype).max:
        # every value has |t| <= width: bucket 0 from 0 up, bucket -1 below
        return (timestamps < 0).to(timestamps.dtype).neg_()
    quotient = torch.div(timestamps, width, rounding_mode="trunc")
    inexact_negative = (torch.fmod(timestamps, width) != 0) & (timestamps < 0)
    return quotient.sub_(inexact_negative.to(quotient.dtype))


@dataclass(frozen=True)
class _Operand:
    dtype: torch.dtype
    rank: int  # 0: tensor with dimensions, 1: 0-dim tensor, 2: Python number

    @property
    def category(self) -> int:
        if self.dtype == torch.bool:
            return 0
        return 2 if self.dtype.is_floating_point else 1


def _operand(value: torch.Tensor | bool | int | float) -> _Operand:
    if isinstance(value, torch.Tensor):
        return _Operand(value.dtype, 0 if value.dim() > 0 else 1)
    if isinstance(value, bool):
        return _Operand(torch.bool, 2)
    if isinstance(value, int):
        return _Operand(torch.int64, 2)
    return _Operand(torch.get_default_dtype(), 2)


def _join(a: torch.dtype, b: torch.dtype) -> torch.dtype:
    """The dtype of one rank: higher category, or within one the dtype holding both."""
    ca, cb = _Operand(a, 0).category, _Operand(b, 0).category
    if ca != cb:
        return a if ca > cb else b
    if a == b:
        return a
    if ca == 2:
        if {a, b} == {torch.float16, torch.bfloat16}:
            return torch.float32
        return a if a.itemsize > b.itemsize else b
    if a.is_signed == b.is_signed:
        return a if a.itemsize > b.itemsize else b
    unsigned, signed = (a, b) if not a.is_signed else (b, a)
    if signed.itemsize > unsigned.itemsize:
        return signed
    return {1: torch.int16, 2: torch.int32, 4: torch.int64}[unsigned.itemsize]


def result_dtype(
    a: torch.Tensor | bool | int | float,
    b: torch.Tensor | bool | int | float,
    *,
    divide: bool = False,
) -> torch.dtype:
    ops = sorted((_operand(a), _operand(b)), key=lambda op: op.rank)
    result: torch.dtype | None = None
    result_rank = -1
    for op in ops:
        if result is None:
            result, result_rank = op.dtype, op.rank
        elif op.rank == result_rank:
            result = _join(result, op.dtype)
        elif op.category > _Operand(result, 0).category:
            result = op.dtype
    assert result is not None
    if divide and not result.is_floating_point:
        return torch.get_default_dtype()
    return result
