"""Wrong: writes the moved tensors back into the input's lists and dicts."""

import torch

from solutions.q26_to_device import (  # the rest as in the reference
    copy_to,
    pick_device,
    place_for_training,
)


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        for key, value in batch.items():
            batch[key] = to_device(value, device)
        return batch
    if isinstance(batch, list):
        for i, item in enumerate(batch):
            batch[i] = to_device(item, device)
        return batch
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(item, device) for item in batch))
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    return batch
