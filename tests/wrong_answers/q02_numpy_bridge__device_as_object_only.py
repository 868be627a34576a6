"""Wrong: to_tensor reads `device.type`, so a device given as a string ("cpu") fails."""

import numpy as np
import torch

from solutions.q02_numpy_bridge import to_numpy, to_numpy_copy  # the rest as in the reference


def to_tensor(array: np.ndarray, device=None) -> torch.Tensor:
    if device is None or device.type == "cpu":
        return torch.from_numpy(array)
    return torch.tensor(array, device=device)
