"""Wrong: counts elements with torch.Size(shape).numel(), which wraps beyond 2**63 elements."""

import torch

from solutions.q04_dtypes import safe_mean, time_bucket  # the rest as in the reference


def nbytes(shape, dtype):
    return torch.Size(shape).numel() * dtype.itemsize
