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


_ORDER = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]
_NEITHER_HOLDS = {
    frozenset({torch.uint8, torch.int8}): torch.int16,
    frozenset({torch.float16, torch.bfloat16}): torch.float32,
}


def _group(dtype):
    if dtype == torch.bool:
        return "bool"
    return "float" if dtype.is_floating_point else "int"


_GROUPS = ["bool", "int", "float"]


def _join(x, y):
    return _NEITHER_HOLDS.get(frozenset({x, y}), max(x, y, key=_ORDER.index))


def result_dtype(a, b, *, divide=False):
    ranks = {"dims": [], "zero": [], "number": []}
    for value in (a, b):
        if isinstance(value, torch.Tensor):
            ranks["dims" if value.dim() else "zero"].append(value.dtype)
        elif isinstance(value, bool):
            ranks["number"].append(torch.bool)
        elif isinstance(value, int):
            ranks["number"].append(torch.int64)
        else:
            ranks["number"].append(torch.get_default_dtype())
    result = None
    for dtypes in ranks.values():  # dims, then 0-dim, then numbers
        if not dtypes:
            continue
        group = dtypes[0] if len(dtypes) == 1 else _join(*dtypes)
        if result is None:
            result = group
        elif _GROUPS.index(_group(group)) > _GROUPS.index(_group(result)):
            result = _join(result, group)
    if divide and _group(result) != "float":
        result = torch.get_default_dtype()
    return result
