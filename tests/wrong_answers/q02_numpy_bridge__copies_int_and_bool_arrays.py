"""Wrong: builds int and bool tensors with torch.tensor, which copies them on the CPU."""

import torch

from solutions.q02_numpy_bridge import to_numpy, to_numpy_copy  # the rest as in the reference


def to_tensor(array, device=None):
    if array.dtype.kind != "f":  # ints and bools: torch.tensor infers them fine
        return torch.tensor(array, device="cpu" if device is None else device)
    return torch.as_tensor(array, device="cpu" if device is None else device)
