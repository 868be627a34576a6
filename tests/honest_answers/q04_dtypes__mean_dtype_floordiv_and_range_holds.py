"""itemsize times the sizes in a loop of Python ints; torch.mean with dtype=float32; floor
division with `//` behind a width that fits the dtype; promotion as the dtype of smallest
size whose range and precision hold both (finfo/iinfo), ranks folded from the top."""

import torch

_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_INTS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    total = dtype.itemsize
    for size in shape:
        total *= int(size)  # Python ints: no overflow however large
    return total


def safe_mean(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    low = x.dtype in (torch.float16, torch.bfloat16)
    acc = torch.float32 if low else x.dtype
    dims = () if dim is None else (dim,)
    out = torch.mean(x, dim=dims, dtype=acc) if dims else torch.mean(x, dtype=acc)
    return out.to(x.dtype)


def time_bucket(timestamps: torch.Tensor, width: int) -> torch.Tensor:
    if not isinstance(timestamps, torch.Tensor) or timestamps.dtype not in _INTS:
        raise TypeError(f"timestamps must be an integer tensor, got {type(timestamps)}")
    if width < 1:
        raise ValueError("width must be a positive int")
    info = torch.iinfo(timestamps.dtype)
    if width <= info.max:
        return timestamps // width  # Tensor.__floordiv__ rounds toward -inf
    return torch.where(
        timestamps < 0,
        torch.full_like(timestamps, -1 if info.min < 0 else 0),
        torch.zeros_like(timestamps),
    )


def _holds(big: torch.dtype, small: torch.dtype) -> bool:
    if big.is_floating_point != small.is_floating_point:
        return False
    if big.is_floating_point:
        fb, fs = torch.finfo(big), torch.finfo(small)
        return fb.max >= fs.max and fb.eps <= fs.eps and fb.tiny <= fs.tiny
    ib, is_ = torch.iinfo(big), torch.iinfo(small)
    return ib.min <= is_.min and ib.max >= is_.max


def _category(dtype: torch.dtype) -> int:
    return 0 if dtype == torch.bool else 2 if dtype.is_floating_point else 1


def _join(a: torch.dtype, b: torch.dtype) -> torch.dtype:
    if _category(a) != _category(b):
        return max(a, b, key=_category)
    if a == torch.bool:
        return a
    pool = _FLOATS if a.is_floating_point else _INTS
    return min((d for d in pool if _holds(d, a) and _holds(d, b)), key=lambda d: d.itemsize)


def result_dtype(
    a: torch.Tensor | bool | int | float,
    b: torch.Tensor | bool | int | float,
    *,
    divide: bool = False,
) -> torch.dtype:
    ranks: list[list[torch.dtype]] = [[], [], []]
    for value in (a, b):
        if isinstance(value, torch.Tensor):
            ranks[0 if value.ndim else 1].append(value.dtype)
        elif isinstance(value, bool):
            ranks[2].append(torch.bool)
        elif isinstance(value, int):
            ranks[2].append(torch.int64)
        else:
            ranks[2].append(torch.get_default_dtype())
    result = None
    for group in ranks:
        if not group:
            continue
        joined = group[0] if len(group) == 1 else _join(group[0], group[1])
        if result is None or _category(joined) > _category(result):
            result = joined
    assert result is not None
    if divide and _category(result) < 2:
        return torch.get_default_dtype()
    return result
