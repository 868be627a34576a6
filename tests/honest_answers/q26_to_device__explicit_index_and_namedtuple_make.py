"""pick_device with an explicit index; devices compared after filling in the current index;
namedtuples rebuilt with _make."""

import copy
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    kind = torch.accelerator.current_accelerator()
    assert kind is not None  # available implies a kind
    return torch.device(kind.type, torch.accelerator.current_device_index())


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    target = torch.device(device)
    model.to(target)
    moved = []
    for tensor in inputs:
        moved.append(tensor.to(target))
    return moved


def _resolved(device: torch.device) -> torch.device:
    if device.type in ("cpu", "meta"):
        return torch.device(device.type)  # torch.device("cpu", 0) is the CPU too
    if device.index is not None:
        return device
    return torch.device(device.type, torch.accelerator.current_device_index())


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = torch.device(device)
    if tensor.device.type == target.type and _resolved(tensor.device) == _resolved(target):
        return tensor
    if tensor.device.type == "cpu" and target.type not in ("cpu", "meta"):
        pinned = tensor if tensor.is_pinned() else tensor.pin_memory()
        return pinned.to(target, non_blocking=True)
    return tensor.to(target, non_blocking=False)


def _rebuild_dict(batch: dict, move: Callable[[Any], Any]) -> dict:
    out = copy.copy(batch)
    for key in batch:
        out[key] = move(batch[key])
    return out


def to_device(batch: Any, device: torch.device | str) -> Any:
    def move(item: Any) -> Any:
        return to_device(item, device)

    if torch.is_tensor(batch):
        return batch.to(device)
    if isinstance(batch, dict):
        return _rebuild_dict(batch, move)
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)._make(move(item) for item in batch)
    if isinstance(batch, tuple):
        return tuple(move(item) for item in batch)
    if isinstance(batch, list):
        return list(map(move, batch))
    return batch
