"""Correct: divides every integer dtype in int64 and converts back (exact, since each bucket
fits the dtype), and takes a width beyond int64 as bucket 0 or -1."""

import torch

from solutions.q04_dtypes import nbytes, result_dtype, safe_mean  # the rest as in the reference


def time_bucket(timestamps, width):
    if width < 1:
        raise ValueError(f"width must be a positive int, got {width}")
    if timestamps.is_floating_point() or timestamps.is_complex() or timestamps.dtype == torch.bool:
        raise TypeError(f"timestamps must be an integer tensor, got {timestamps.dtype}")
    wide = timestamps.long()
    if width > torch.iinfo(torch.int64).max:
        return -(wide < 0).long().to(timestamps.dtype)
    return torch.div(wide, width, rounding_mode="floor").to(timestamps.dtype)
