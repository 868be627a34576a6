"""Wrong: asks torch.get_default_device() whether a default device was set, so a default
set to the CPU reads as none and a GPU tensor stays where it is."""

import torch

from solutions.q35_tensor_creation import from_data, scalar_like, zeros_for


def as_tensor_shared(data, dtype=None, device=None):
    if device is None and isinstance(data, torch.Tensor):
        default = torch.get_default_device()
        device = default if default.type != "cpu" else data.device
    return torch.as_tensor(data, dtype=dtype, device=device)
