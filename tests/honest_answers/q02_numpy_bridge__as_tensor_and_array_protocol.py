"""torch.as_tensor with an explicit CPU, np.asarray via __array__, np.array(copy=True)."""

import numpy as np
import torch

_CPU = torch.device("cpu")


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    """The array as a tensor on `device` (None: the CPU), sharing memory on the CPU."""
    target = _CPU if device is None else torch.device(device)
    return torch.as_tensor(array, device=target)


def _plain_cpu(t: torch.Tensor) -> torch.Tensor:
    # NumPy knows neither autograd, nor devices, nor the conjugate/negative bits.
    t = t.detach()
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    return t.to(_CPU)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """t's values as a NumPy array; shares memory for a plain CPU tensor."""
    return np.asarray(_plain_cpu(t))


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    """A NumPy snapshot of t that never shares memory with it."""
    return np.array(_plain_cpu(t), copy=True)
