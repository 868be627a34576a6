"""Correct: from_numpy, a device compared by its type, to('cpu') and np.array(copy=True)."""

import numpy as np
import torch


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    wrapped = torch.from_numpy(array)  # the array's own memory (asarray copies a 0-D one)
    if device is None or torch.device(device).type == "cpu":
        return wrapped
    return wrapped.to(device)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    plain = t.detach()
    if plain.device.type != "cpu":
        plain = plain.to("cpu")
    return plain.resolve_conj().resolve_neg().numpy()


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    return np.array(to_numpy(t), copy=True)
