"""Wrong: divides by a width that does not fit the dtype, which torch wraps (int8 by 1000)."""

import torch

from solutions.q04_dtypes import nbytes, safe_mean  # the rest as in the reference


def time_bucket(timestamps, width):
    if width < 1:
        raise ValueError(f"width must be a positive int, got {width}")
    if timestamps.is_floating_point() or timestamps.is_complex() or timestamps.dtype == torch.bool:
        raise TypeError(f"timestamps must be an integer tensor, got {timestamps.dtype}")
    return torch.div(timestamps, width, rounding_mode="floor")
