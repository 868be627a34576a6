"""Wrong: moves with .to(device, torch.float32), casting labels, masks and half tensors."""

import torch

from solutions.q26_to_device import (  # the rest as in the reference
    copy_to,
    pick_device,
    place_for_training,
)


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, torch.float32)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(item, device) for item in batch))
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    return batch
