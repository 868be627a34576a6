"""Empty tensor on the target device filled with copy_, the .data alias, and np.copyto."""

import numpy as np
import torch


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    target = torch.device("cpu") if device is None else torch.device(device)
    shared = torch.from_numpy(array)  # zero-copy CPU view, dtype kept
    if target.type == "cpu" and target.index is None:
        return shared
    out = torch.empty(shared.shape, dtype=shared.dtype, device=target)
    out.copy_(shared)
    return out


def to_numpy(t: torch.Tensor) -> np.ndarray:
    x = t.data  # an alias outside autograd, t untouched
    if x.is_conj():
        x = x.resolve_conj()
    if x.is_neg():
        x = x.resolve_neg()
    if x.device.type != "cpu":
        x = x.to("cpu")  # blocking copy
    return x.numpy()


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    view = to_numpy(t)
    out = np.empty(view.shape, dtype=view.dtype)
    np.copyto(out, view)
    return out
