"""match on the device type, torch.tensor for the device copy, functional resolve_* and clone."""

import numpy as np
import torch


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    target = torch.device("cpu" if device is None else device)
    match target.type:
        case "cpu":
            return torch.from_numpy(array)
        case _:
            return torch.tensor(array, device=target)


def _plain(t: torch.Tensor) -> torch.Tensor:
    # NumPy has neither the conjugate nor the negative bit: apply them.
    return torch.resolve_neg(torch.resolve_conj(t.detach()))


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return _plain(t).cpu().numpy()


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    fresh = torch.clone(_plain(t).cpu(), memory_format=torch.contiguous_format)
    return fresh.numpy()
