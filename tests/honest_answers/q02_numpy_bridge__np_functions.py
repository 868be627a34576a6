"""NumPy functions named through numpy itself: np.asarray, np.array(copy=True), from_numpy."""

import numpy as np
import torch


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    tensor = torch.from_numpy(np.asarray(array))
    return tensor if device is None else tensor.to(device)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return np.asarray(t.detach().to("cpu").resolve_conj().resolve_neg())


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    return np.array(to_numpy(t), copy=True)
