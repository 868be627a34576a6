"""math.prod with dtype.itemsize, float() then mean, floor division guarded by iinfo, and a
promotion written as a small lattice keyed on (category, dtype)."""

import math

import torch

_LOW_PRECISION = {torch.float16, torch.bfloat16}
_PAIR_UPGRADES = {
    frozenset({torch.uint8, torch.int8}): torch.int16,
    frozenset({torch.float16, torch.bfloat16}): torch.float32,
}


def nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    return math.prod(int(s) for s in shape) * dtype.itemsize


def safe_mean(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    if x.dtype in _LOW_PRECISION:
        wide = x.float()
        out = wide.mean() if dim is None else wide.mean(dim)
        return out.to(x.dtype)
    return x.mean() if dim is None else x.mean(dim)


def time_bucket(timestamps: torch.Tensor, width: int) -> torch.Tensor:
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width}")
    if (
        timestamps.dtype.is_floating_point
        or timestamps.dtype.is_complex
        or timestamps.dtype == torch.bool
    ):
        raise TypeError(f"timestamps must be an integer tensor, not {timestamps.dtype}")
    limit = torch.iinfo(timestamps.dtype).max
    if width > limit:
        # Every value has |t| <= width here: non-negative ones are in bucket 0, negative in -1.
        return torch.where(timestamps < 0, -1, 0).to(timestamps.dtype)
    return torch.div(timestamps, width, rounding_mode="floor")


def _category(dtype: torch.dtype) -> int:
    if dtype == torch.bool:
        return 0
    return 2 if dtype.is_floating_point else 1


def _join(a: torch.dtype, b: torch.dtype) -> torch.dtype:
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    if a == b:
        return a
    special = _PAIR_UPGRADES.get(frozenset({a, b}))
    if special is not None:
        return special
    return a if a.itemsize >= b.itemsize else b


def _describe(value: torch.Tensor | bool | int | float) -> tuple[int, torch.dtype]:
    if isinstance(value, torch.Tensor):
        return (0 if value.dim() > 0 else 1), value.dtype
    if isinstance(value, bool):
        return 2, torch.bool
    if isinstance(value, int):
        return 2, torch.int64
    return 2, torch.get_default_dtype()


def result_dtype(
    a: torch.Tensor | bool | int | float,
    b: torch.Tensor | bool | int | float,
    *,
    divide: bool = False,
) -> torch.dtype:
    (rank_a, dtype_a), (rank_b, dtype_b) = sorted([_describe(a), _describe(b)], key=lambda p: p[0])
    if rank_a == rank_b:
        out = _join(dtype_a, dtype_b)
    elif _category(dtype_b) > _category(dtype_a):
        out = dtype_b
    else:
        out = dtype_a
    if divide and _category(out) < 2:
        return torch.get_default_dtype()
    return out
