"""Wrong: detaches every tensor it moves, cutting it out of its autograd graph."""

import copy

import torch

from solutions.q26_to_device import copy_to, pick_device, place_for_training  # the rest


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        moved = batch.detach().to(device)
        return batch if moved.device == batch.device and not batch.requires_grad else moved
    if isinstance(batch, dict):
        moved = copy.copy(batch)
        for key, value in batch.items():
            moved[key] = to_device(value, device)
        return moved
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(item, device) for item in batch))
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    return batch
