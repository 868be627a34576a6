"""Both directions through the DLPack protocol: torch.from_dlpack and np.from_dlpack."""

import numpy as np
import torch

_CPU = torch.device("cpu")


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    shared = torch.from_dlpack(array)
    if device is None:
        return shared
    target = torch.device(device)
    return shared if target == _CPU else shared.to(target)


def _plain_cpu(t: torch.Tensor) -> torch.Tensor:
    # DLPack has no conjugate or negative bit and refuses a tensor that requires grad.
    t = t.detach()
    if t.device.type != "cpu":
        t = t.to(_CPU)  # blocking: complete on return
    return t.resolve_conj().resolve_neg()


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return np.from_dlpack(_plain_cpu(t))


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    snapshot = np.from_dlpack(_plain_cpu(t))
    return snapshot.copy(order="K")
