"""Constructors called with a shared keyword dict: torch.tensor for copies, torch.as_tensor
with its arguments passed through, torch.full for zeros and torch.scalar_tensor for one value."""

from typing import Any

import numpy as np
import torch

_Data = bool | int | float | list | tuple | np.ndarray


def _placed_like(like: torch.Tensor) -> dict[str, Any]:
    return {"dtype": like.dtype, "device": like.device}


def from_data(data: _Data, device: torch.device | str | None = None) -> torch.Tensor:
    where = torch.get_default_device() if device is None else device
    return torch.tensor(data, device=where)


def as_tensor_shared(
    data: torch.Tensor | _Data,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    options = {"dtype": dtype, "device": device}
    return torch.as_tensor(data, **options)


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    return torch.full(shape, 0, **_placed_like(like))


def scalar_like(value: bool | int | float, like: torch.Tensor) -> torch.Tensor:
    return torch.scalar_tensor(value, **_placed_like(like))
