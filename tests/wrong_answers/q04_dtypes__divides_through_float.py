"""Wrong: divides with `/` and floors, going through floating point and back to int64."""

import torch

from solutions.q04_dtypes import nbytes, safe_mean  # the rest as in the reference


def time_bucket(timestamps, width):
    if width < 1:
        raise ValueError("width must be positive")
    if timestamps.is_floating_point() or timestamps.dtype == torch.bool:
        raise TypeError("timestamps must be integers")
    return torch.floor(timestamps / width).long()
