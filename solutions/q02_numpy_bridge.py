"""Kata 2: tensors and NumPy arrays (reference answer)."""

import numpy as np
import torch


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    # as_tensor keeps the array's dtype; on the CPU it wraps the array's memory like
    # torch.from_numpy, and for another device it copies, which cannot be avoided.
    # (torch.tensor would always copy.) None is the CPU, not torch's default device,
    # which torch.set_default_device may have changed.
    return torch.as_tensor(array, device="cpu" if device is None else device)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    # .numpy() needs a CPU tensor outside autograd, with no lazy conjugate or negative bit
    # (z.conj() only flags its result; NumPy has no such flag). force=True does it all:
    # detach, cpu, resolve_conj, resolve_neg, each a no-op (no copy) where not needed.
    return t.numpy(force=True)


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    # On the CPU the array from to_numpy is t's own memory: copy it so the two are
    # independent. (From a GPU this copies twice; clarity wins for a kata.)
    return to_numpy(t).copy()
