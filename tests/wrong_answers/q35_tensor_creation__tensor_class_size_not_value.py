"""Wrong: scalar_like uses torch.Tensor(value): for an int that is a tensor of `value` elements."""

import torch

from solutions.q35_tensor_creation import as_tensor_shared, from_data, zeros_for

__all__ = ["as_tensor_shared", "from_data", "scalar_like", "zeros_for"]


def scalar_like(value, like):
    return torch.Tensor(value).to(like)
