"""as_tensor then clone for the copy, device and dtype resolved in two steps for tensors,
flat zeros viewed to shape, and a 0-dim zero filled in place."""

import math

import numpy as np
import torch

_Data = bool | int | float | list | tuple | np.ndarray


def from_data(data: _Data, device: torch.device | str | None = None) -> torch.Tensor:
    # as_tensor may share a NumPy array's memory; clone always owns its own.
    return torch.as_tensor(data, device=device).clone()


def as_tensor_shared(
    data: torch.Tensor | _Data,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    if not isinstance(data, torch.Tensor):
        # Python numbers go straight to the wanted dtype (no detour via float32).
        return torch.as_tensor(data, dtype=dtype, device=device)
    placed = torch.as_tensor(data, device=device)  # data itself when already there
    if dtype is None or placed.dtype == dtype:
        return placed
    return placed.to(dtype)  # recorded by autograd


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    flat = torch.zeros(math.prod(shape), dtype=like.dtype, device=like.device)
    return flat.view(shape)


def scalar_like(value: bool | int | float, like: torch.Tensor) -> torch.Tensor:
    out = torch.empty((), dtype=like.dtype, device=like.device)
    return out.fill_(value)
