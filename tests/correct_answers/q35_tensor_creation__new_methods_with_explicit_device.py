"""Correct: zeros and scalars made with like.new_zeros / like.new_full (device named
explicitly, so no default device overrides it), the default device looked up by hand for
copies."""

import torch


def from_data(data, device=None):
    target = torch.get_default_device() if device is None else torch.device(device)
    return torch.tensor(data, device=target)


def as_tensor_shared(data, dtype=None, device=None):
    return torch.as_tensor(data, dtype=dtype, device=device)


def zeros_for(shape, like):
    return like.new_zeros(tuple(shape), device=like.device, requires_grad=False)


def scalar_like(value, like):
    return like.new_full((), value, device=like.device, requires_grad=False)
