"""Wrong: copies a NumPy array whenever a dtype is given, even the dtype it already has."""

import numpy as np
import torch

from solutions.q35_tensor_creation import from_data, scalar_like, zeros_for

__all__ = ["as_tensor_shared", "from_data", "scalar_like", "zeros_for"]


def as_tensor_shared(data, dtype=None, device=None):
    if isinstance(data, np.ndarray) and dtype is not None:
        return torch.tensor(data, dtype=dtype, device=device)
    return torch.as_tensor(data, dtype=dtype, device=device)
