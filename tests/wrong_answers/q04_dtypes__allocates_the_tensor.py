"""Wrong: nbytes builds the tensor to ask its size, which fails for a tensor too big to hold."""

import torch

from solutions.q04_dtypes import safe_mean, time_bucket  # the rest as in the reference


def nbytes(shape, dtype):
    return torch.empty(shape, dtype=dtype).nbytes
