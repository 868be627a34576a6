"""Wrong: to_tensor reads `device.type`, so a device given as a string ("cpu") fails."""

import numpy as np
import torch


def to_tensor(array: np.ndarray, device=None) -> torch.Tensor:
    if device is None or device.type == "cpu":
        return torch.from_numpy(array)
    return torch.tensor(array, device=device)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    return to_numpy(t).copy()
