"""Wrong: converts Python data through NumPy and turns NumPy's float64 into float32, so
Python floats ignore the default float dtype."""

import numpy as np
import torch

from solutions.q35_tensor_creation import from_data, scalar_like, zeros_for


def as_tensor_shared(data, dtype=None, device=None):
    if not isinstance(data, (torch.Tensor, np.ndarray)):
        data = np.asarray(data)
        if data.dtype == np.float64:
            data = data.astype(np.float32)
    return torch.as_tensor(data, dtype=dtype, device=device)
