"""Wrong: zeros_for calls torch.zeros with like's dtype but not its device, so on a GPU the
zeros are on the CPU."""

import numpy as np
import torch

_Data = bool | int | float | list | tuple | np.ndarray


def from_data(data: _Data, device: torch.device | str | None = None) -> torch.Tensor:
    # torch.tensor always copies and infers the dtype from the data (int64 for ints);
    # torch.Tensor(data) would make float32, and torch.Tensor(3) three garbage values.
    return torch.tensor(data, device=device)


def as_tensor_shared(
    data: torch.Tensor | _Data,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    # as_tensor returns data itself (or a view of a CPU array) when dtype and device
    # already match, and converts otherwise.
    return torch.as_tensor(data, dtype=dtype, device=device)


def zeros_for(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    # new_zeros takes dtype and device from like; unlike empty, it fills the memory.
    return torch.zeros(shape, dtype=like.dtype)


def scalar_like(value: bool | int | float, like: torch.Tensor) -> torch.Tensor:
    # torch.tensor of a number is 0-dim and holds that number.
    return torch.tensor(value, dtype=like.dtype, device=like.device)
