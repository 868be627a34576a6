"""Wrong: upcasts float16 but sums bfloat16 as it is, rounding the sum before dividing."""

import torch

from solutions.q04_dtypes import nbytes, time_bucket  # the rest as in the reference


def safe_mean(x, dim=None):
    acc = x.float() if x.dtype == torch.float16 else x
    total = acc.sum() if dim is None else acc.sum(dim)
    count = x.numel() if dim is None else x.shape[dim]
    return (total / count).to(x.dtype)
