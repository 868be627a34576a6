"""Wrong: scalar_like uses torch.Tensor(value): for an int that is a tensor of `value` elements."""

import torch

from solutions.q35_tensor_creation import (  # the rest as in the reference
    as_tensor_shared,
    from_data,
    zeros_for,
)


def scalar_like(value, like):
    return torch.Tensor(value).to(like)
