"""Wrong: makes the data contiguous first, which copies a transposed tensor or array that
needed no conversion."""

import numpy as np
import torch

from solutions.q35_tensor_creation import from_data, scalar_like, zeros_for

__all__ = ["as_tensor_shared", "from_data", "scalar_like", "zeros_for"]


def as_tensor_shared(data, dtype=None, device=None):
    if isinstance(data, np.ndarray):
        data = np.ascontiguousarray(data)
    elif isinstance(data, torch.Tensor):
        data = data.contiguous()
    return torch.as_tensor(data, dtype=dtype, device=device)
