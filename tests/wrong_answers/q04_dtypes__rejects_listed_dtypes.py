"""Wrong: time_bucket rejects a list of dtypes (float32, float64, bool, complex) instead of
every non-integer one, so float16 and bfloat16 timestamps get through."""

import torch

from solutions.q04_dtypes import nbytes, safe_mean


def time_bucket(timestamps, width):
    if width < 1:
        raise ValueError(f"width must be a positive int, got {width}")
    if timestamps.dtype in (torch.float32, torch.float64, torch.bool) or timestamps.is_complex():
        raise TypeError(f"timestamps must be an integer tensor, got {timestamps.dtype}")
    return torch.div(timestamps, width, rounding_mode="floor")
