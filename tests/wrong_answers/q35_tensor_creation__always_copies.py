"""Wrong: as_tensor_shared clones every time, even when data needs no conversion."""

import torch

from solutions.q35_tensor_creation import (  # the rest as in the reference
    from_data,
    scalar_like,
    zeros_for,
)


def as_tensor_shared(data, dtype=None, device=None):
    return torch.as_tensor(data, dtype=dtype, device=device).clone()
