"""torch.asarray with an explicit CPU (0-D via a view), numpy(force=True), .to(copy=True)."""

import numpy as np
import torch

_CPU = torch.device("cpu")


def to_tensor(array: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
    # Name the CPU explicitly so a changed default device does not apply.
    target = _CPU if device is None else torch.device(device)
    if array.ndim == 0:
        # torch.asarray reads a 0-D array as a scalar and copies it; wrap a
        # one-element view instead and drop the dimension again (still a view).
        return torch.asarray(array.reshape(1), device=target, copy=None).reshape(())
    # copy=None: share when possible (the CPU), copy otherwise.
    return torch.asarray(array, device=target, copy=None)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    # force=True detaches, moves to the CPU and resolves the conj/neg bits,
    # each only when needed, so a plain CPU tensor is shared.
    return t.numpy(force=True)


def to_numpy_copy(t: torch.Tensor) -> np.ndarray:
    snapshot = t.detach().to(_CPU, copy=True)
    # Resolving a flag copies again; harmless, the result is still fresh.
    snapshot = snapshot.resolve_conj().resolve_neg()
    return snapshot.numpy()
