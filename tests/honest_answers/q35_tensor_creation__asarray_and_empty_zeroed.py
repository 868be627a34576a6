"""torch.asarray with copy=True and an explicit device; empty(...).zero_(); asarray for scalars."""

import numpy as np
import torch

_Data = bool | int | float | list | tuple | np.ndarray


def from_data(data: _Data, device: torch.device | str | None = None) -> torch.Tensor:
    # torch.asarray puts a NumPy array on the array's device (the CPU) when device is None,
    # so name the default device explicitly; copy=True forbids sharing.
    target = torch.get_default_device() if device is None else device
    return torch.asarray(data, device=target, copy=True)


def as_tensor_shared(
    data: torch.Tensor | _Data,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    # Only as_tensor knows whether a default device was set at all.
    return torch.as_tensor(data, dtype=dtype, device=device)


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    # Fresh storage for every element, then filled in place: never left uninitialised.
    out = torch.empty(tuple(shape), dtype=like.dtype, device=like.device)
    return out.zero_()


def scalar_like(value: bool | int | float, like: torch.Tensor) -> torch.Tensor:
    # A Python number becomes a 0-dim tensor, converted straight to like's dtype.
    return torch.asarray(value, dtype=like.dtype, device=like.device)
