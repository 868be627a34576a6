"""functools.singledispatch on the kind of data, Tensor.to(copy=True) for arrays,
nn.init.zeros_ on fresh memory, and as_tensor for the constant."""

import functools

import numpy as np
import torch

_Data = bool | int | float | list | tuple | np.ndarray


@functools.singledispatch
def _copy_of(data: object, device: torch.device) -> torch.Tensor:
    return torch.tensor(data, device=device)


@_copy_of.register
def _(data: np.ndarray, device: torch.device) -> torch.Tensor:
    return torch.from_numpy(data).to(device=device, copy=True)


def from_data(data: _Data, device: torch.device | str | None = None) -> torch.Tensor:
    target = torch.get_default_device() if device is None else torch.device(device)
    return _copy_of(data, target)


def as_tensor_shared(
    data: torch.Tensor | _Data,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    return torch.as_tensor(data, dtype=dtype, device=device)


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    out = torch.empty(shape, dtype=like.dtype, device=like.device)
    torch.nn.init.zeros_(out)
    return out


def scalar_like(value: bool | int | float, like: torch.Tensor) -> torch.Tensor:
    return torch.as_tensor(value, dtype=like.dtype, device=like.device)
