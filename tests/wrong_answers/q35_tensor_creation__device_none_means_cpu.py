"""Wrong: device None means the CPU, whatever torch.set_default_device chose."""

import torch

from solutions.q35_tensor_creation import scalar_like, zeros_for  # the rest as in the reference


def from_data(data, device=None):
    return torch.tensor(data, device=device or "cpu")


def as_tensor_shared(data, dtype=None, device=None):
    if device is None:
        device = data.device if isinstance(data, torch.Tensor) else "cpu"
    return torch.as_tensor(data, dtype=dtype, device=device)
