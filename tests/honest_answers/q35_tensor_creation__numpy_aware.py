"""Each function spelled with the constructor it names, numpy arrays told by isinstance."""

import numpy as np
import torch


def from_data(
    data: bool | int | float | list | tuple | np.ndarray,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    if isinstance(data, np.ndarray):
        return torch.from_numpy(data.copy()).to(device or torch.get_default_device())
    return torch.tensor(data, device=device)


def as_tensor_shared(data, dtype=None, device=None):  # type: ignore[no-untyped-def]
    return torch.as_tensor(data, dtype=dtype, device=device)


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    return torch.zeros(shape, dtype=like.dtype, device=like.device)


def scalar_like(value: bool | int | float, like: torch.Tensor) -> torch.Tensor:
    return torch.full((), value, dtype=like.dtype, device=like.device)
