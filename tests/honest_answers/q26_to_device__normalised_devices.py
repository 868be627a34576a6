"""Devices normalised to a full (type, index) before comparing; an isinstance chain for batches."""

import copy
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

_HOST_TYPES = ("cpu", "meta")  # devices that run no kernels of an accelerator


def pick_device() -> torch.device:
    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None:
            return accelerator
    return torch.device("cpu")


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device)
    return [x.to(device) for x in inputs]


def _full(device: torch.device | str) -> tuple[str, int | None]:
    d = torch.device(device)
    if d.type in _HOST_TYPES:
        return d.type, None
    if d.index is None:
        # "cuda" means the current device of that kind
        return d.type, torch.accelerator.current_device_index()
    return d.type, d.index


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    same_type = tensor.device.type == torch.device(device).type
    if same_type and _full(tensor.device) == _full(device):
        return tensor
    target = torch.device(device)
    if tensor.device.type == "cpu" and target.type not in _HOST_TYPES:
        source = tensor if tensor.is_pinned() else tensor.pin_memory()
        return source.to(target, non_blocking=True)
    return tensor.to(target)


def to_device(batch: Any, device: torch.device | str) -> Any:
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        moved = copy.copy(batch)
        for key, value in batch.items():
            moved[key] = to_device(value, device)
        return moved
    if isinstance(batch, tuple):
        items = [to_device(item, device) for item in batch]
        if hasattr(type(batch), "_fields"):
            return type(batch)(*items)
        return tuple(items)
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    return batch
