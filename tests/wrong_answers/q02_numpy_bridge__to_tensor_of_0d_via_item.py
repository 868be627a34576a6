"""Wrong: builds a 0-D tensor from array.item(), which copies and turns float64 into float32."""

import torch

from solutions.q02_numpy_bridge import to_numpy, to_numpy_copy  # the rest as in the reference


def to_tensor(array, device=None):
    if array.ndim == 0:  # a scalar array: build the tensor from its Python value
        return torch.tensor(array.item(), device="cpu" if device is None else device)
    return torch.as_tensor(array, device="cpu" if device is None else device)
