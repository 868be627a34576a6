"""Arrays copied by NumPy before torch.from_numpy; constants and zeros by torch.full."""

import numpy as np
import torch

_Data = bool | int | float | list | tuple | np.ndarray


def _device_or_default(device: torch.device | str | None) -> torch.device:
    return torch.get_default_device() if device is None else torch.device(device)


def from_data(data: _Data, device: torch.device | str | None = None) -> torch.Tensor:
    if isinstance(data, np.ndarray):
        private = torch.from_numpy(np.array(data, copy=True))  # NumPy's copy: nothing shared
        return private.to(_device_or_default(device))
    return torch.tensor(data, device=_device_or_default(device))


def as_tensor_shared(
    data: torch.Tensor | _Data,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    # as_tensor shares where it can and records a conversion of a tensor that requires grad.
    return torch.as_tensor(data, dtype=dtype, device=device)


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    return torch.full(tuple(shape), 0, dtype=like.dtype, device=like.device)


def scalar_like(value: bool | int | float, like: torch.Tensor) -> torch.Tensor:
    return torch.full((), value, dtype=like.dtype, device=like.device)
