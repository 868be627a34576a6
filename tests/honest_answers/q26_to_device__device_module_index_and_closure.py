"""pick_device spells out the accelerator's current index; devices compared after
filling in the index through torch.get_device_module; to_device is a closure that recurses
with isinstance checks, namedtuples rebuilt with _make and dicts copied then updated."""

import copy
from collections.abc import Sequence
from operator import methodcaller
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    accelerator = torch.accelerator.current_accelerator()
    assert accelerator is not None
    return torch.device(accelerator.type, torch.accelerator.current_device_index())


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device=device)  # in place: parameters keep their identity, dtype and flags
    return list(map(methodcaller("to", device), inputs))


def _normalised(device: torch.device) -> tuple[str, int | None]:
    """(type, index) with the index filled in: "cuda" means the current CUDA device."""
    if device.type in ("cpu", "meta"):
        return device.type, None  # torch.device("cpu", 0) is the CPU too
    if device.index is not None:
        return device.type, device.index
    return device.type, torch.get_device_module(device.type).current_device()


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = torch.device(device)
    if _normalised(tensor.device) == _normalised(target):
        return tensor
    to_accelerator = target.type not in ("cpu", "meta")
    if tensor.device.type == "cpu" and to_accelerator:
        pinned = tensor if tensor.is_pinned() else tensor.pin_memory()
        return pinned.to(target, non_blocking=True)
    return tensor.to(target)  # blocking


def to_device(batch: Any, device: torch.device | str) -> Any:
    def move(obj: Any) -> Any:
        if isinstance(obj, torch.Tensor):
            return obj.to(device)
        if isinstance(obj, dict):
            moved = copy.copy(obj)  # same class, same keys, a defaultdict's factory too
            for key, value in obj.items():
                moved[key] = move(value)
            return moved
        if isinstance(obj, tuple):
            items = [move(item) for item in obj]
            if hasattr(type(obj), "_fields") and hasattr(type(obj), "_make"):
                return type(obj)._make(items)
            return tuple(items)
        if isinstance(obj, list):
            return [move(item) for item in obj]
        return obj

    return move(batch)
