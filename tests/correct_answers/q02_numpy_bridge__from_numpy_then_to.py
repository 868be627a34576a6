"""Correct: from_numpy then .to(device); detach/cpu/resolve spelled out; np.array(copy=True)."""

import numpy as np
import torch


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    wrapped = torch.from_numpy(array)  # always the array's memory, on the CPU
    return wrapped if device is None else wrapped.to(device)  # .to is a no-op on the CPU


def to_numpy(t: torch.Tensor) -> np.ndarray:
    plain = t.detach().cpu()
    if plain.is_conj():
        plain = plain.resolve_conj()
    if plain.is_neg():
        plain = plain.resolve_neg()
    return plain.numpy()


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    return np.array(to_numpy(t), copy=True)
