"""Kata 2: tensors and NumPy arrays (reference answer)."""

import numpy as np
import torch


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    # as_tensor keeps the array's dtype; on the CPU it wraps the array's memory like
    # torch.from_numpy, and for another device it copies, which cannot be avoided.
    # (torch.tensor would always copy.)
    return torch.as_tensor(array, device=device)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    # .numpy() needs a CPU tensor outside autograd. detach() drops the graph without
    # copying; cpu() is a no-op for a CPU tensor and a device-to-host copy otherwise.
    return t.detach().cpu().numpy()


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    # On the CPU the array from to_numpy is t's own memory: copy it so the two are
    # independent. (From a GPU this copies twice; clarity wins for a kata.)
    return to_numpy(t).copy()
