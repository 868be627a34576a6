"""Wrong: looks the element size up in a table of common dtypes, so float8, uint16, ... fail."""

import math

import torch

from solutions.q04_dtypes import safe_mean, time_bucket  # the rest as in the reference

SIZES = {
    torch.float64: 8,
    torch.float32: 4,
    torch.float16: 2,
    torch.bfloat16: 2,
    torch.int64: 8,
    torch.int32: 4,
    torch.int16: 2,
    torch.int8: 1,
    torch.uint8: 1,
    torch.bool: 1,
    torch.complex64: 8,
    torch.complex128: 16,
}


def nbytes(shape, dtype):
    return math.prod(shape) * SIZES[dtype]
