"""Structural pattern matching over the batch's containers, copy.copy for dicts of any class,
and the accelerator test written as a set of device types that are none."""

import copy
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

_NOT_ACCELERATORS = frozenset({"cpu", "meta"})


def pick_device() -> torch.device:
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    found = torch.accelerator.current_accelerator()
    return found if found is not None else torch.device("cpu")


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device)
    return list(map(lambda t: t.to(device), inputs))


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = torch.device(device)
    if tensor.device.type == target.type == "cpu":
        return tensor  # "cpu:0" is the CPU too, though Tensor.to copies for it
    if tensor.device.type == "cpu" and target.type not in _NOT_ACCELERATORS:
        pinned = tensor if tensor.is_pinned() else tensor.pin_memory()
        return pinned.to(target, non_blocking=True)
    return tensor.to(target)


def to_device(batch: Any, device: torch.device | str) -> Any:
    match batch:
        case torch.Tensor():
            return batch.to(device)
        case dict():
            moved = copy.copy(batch)
            for key, value in batch.items():
                moved[key] = to_device(value, device)
            return moved
        case tuple() if hasattr(type(batch), "_fields"):
            return type(batch)(*(to_device(item, device) for item in batch))
        case tuple():
            return tuple(to_device(item, device) for item in batch)
        case list():
            return [to_device(item, device) for item in batch]
        case _:
            return batch
