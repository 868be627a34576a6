"""NumPy copy then from_numpy, as_tensor, Tensor.new_zeros, torch.full for 0-dim."""

import numpy as np
import torch

_Data = bool | int | float | list | tuple | np.ndarray


def from_data(data: _Data, device: torch.device | str | None = None) -> torch.Tensor:
    """Arrays: np.array copy then from_numpy; Python data: torch.tensor. Then onto the device."""
    target = torch.get_default_device() if device is None else torch.device(device)
    if isinstance(data, np.ndarray):
        return torch.from_numpy(np.array(data, copy=True)).to(target)
    return torch.tensor(data, device=target)


def as_tensor_shared(
    data: torch.Tensor | _Data,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """torch.as_tensor already copies only when it must."""
    return torch.as_tensor(data, dtype=dtype, device=device)


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    """new_zeros takes like's dtype and device and never requires grad."""
    return like.new_zeros(shape)


def scalar_like(value: bool | int | float, like: torch.Tensor) -> torch.Tensor:
    """A 0-dim tensor filled with value, converted straight to like's dtype."""
    return torch.full((), value, dtype=like.dtype, device=like.device)
