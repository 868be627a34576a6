"""Sizes from finfo/iinfo bits, a widened-sum mean, floor division by remainder sign."""

import operator
from functools import reduce

import torch

_LOW = frozenset({torch.float16, torch.bfloat16})
_INTEGER = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)


def _bits(dtype: torch.dtype) -> int:
    if dtype.is_complex:
        return 2 * torch.finfo(dtype.to_real()).bits
    try:
        info = torch.finfo(dtype) if dtype.is_floating_point else torch.iinfo(dtype)
    except TypeError:  # bool, quantized and other dtypes without numeric limits
        return 8 * dtype.itemsize
    return info.bits


def nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    count = reduce(operator.mul, (int(n) for n in shape), 1)
    return count * (_bits(dtype) // 8)


def safe_mean(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    work = x.to(torch.float32) if x.dtype in _LOW else x
    dims = tuple(range(work.dim())) if dim is None else (dim,)
    count = reduce(operator.mul, (work.shape[d] if work.dim() else 1 for d in dims), 1)
    total = work.sum(dim=dims) if dims else work.clone()
    return (total / count).to(x.dtype)


def time_bucket(timestamps: torch.Tensor, width: int) -> torch.Tensor:
    if not isinstance(timestamps, torch.Tensor) or timestamps.dtype not in _INTEGER:
        raise TypeError(f"timestamps must be an integer tensor, not {timestamps.dtype}")
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    info = torch.iinfo(timestamps.dtype)
    if width > info.max:
        # |t| < width for every t: bucket 0 for t >= 0, -1 for t < 0.
        return torch.where(timestamps < 0, -1, 0).to(timestamps.dtype)
    w = torch.tensor(width, dtype=timestamps.dtype, device=timestamps.device)
    quotient = torch.div(timestamps, w, rounding_mode="trunc")
    remainder = timestamps - quotient * w
    return quotient - (remainder < 0).to(timestamps.dtype)


def _holds_both(x: torch.dtype, y: torch.dtype) -> torch.dtype:
    """The smallest dtype of their category whose range (and, for floats, precision) holds
    both: the promotion of two dtypes of one category, found from finfo and iinfo."""
    if x.is_floating_point:
        floats = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
        return next(
            f
            for f in floats
            if torch.finfo(f).max >= max(torch.finfo(x).max, torch.finfo(y).max)
            and torch.finfo(f).eps <= min(torch.finfo(x).eps, torch.finfo(y).eps)
        )
    low = min(torch.iinfo(x).min, torch.iinfo(y).min)
    high = max(torch.iinfo(x).max, torch.iinfo(y).max)
    return next(
        i for i in _INTEGER[::-1] if torch.iinfo(i).min <= low and torch.iinfo(i).max >= high
    )


def _kind(dtype: torch.dtype) -> int:
    return 2 if dtype.is_floating_point else 0 if dtype is torch.bool else 1


def _join(x: torch.dtype, y: torch.dtype) -> torch.dtype:
    if _kind(x) != _kind(y) or x is torch.bool:
        return x if _kind(x) > _kind(y) else y
    return _holds_both(x, y)


def result_dtype(a, b, *, divide=False):
    def ranked(value):
        if isinstance(value, torch.Tensor):
            return (value.ndim == 0, value.dtype)
        number = {bool: torch.bool, int: torch.int64, float: torch.get_default_dtype()}
        return (2, number[type(value)])

    (_, first), (_, second) = sorted([ranked(a), ranked(b)], key=lambda pair: int(pair[0]))
    same_rank = ranked(a)[0] == ranked(b)[0]
    out = _join(first, second) if same_rank or _kind(second) > _kind(first) else first
    return torch.get_default_dtype() if divide and _kind(out) < 2 else out
