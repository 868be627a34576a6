"""Wrong: builds the tensor with torch.tensor, which always copies, even on the CPU."""

import torch

from solutions.q02_numpy_bridge import to_numpy, to_numpy_copy

__all__ = ["to_numpy", "to_numpy_copy", "to_tensor"]


def to_tensor(array, device=None):
    return torch.tensor(array, device=device)
