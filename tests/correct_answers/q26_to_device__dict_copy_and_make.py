"""Correct: a dict's items moved into copy.copy(batch) with update() (which keeps any dict
class; dict.copy() would not, for a subclass of the caller's own), namedtuples rebuilt with
_make, pinning only what is not pinned yet."""

import copy
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    current = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    return torch.device("cpu") if current is None else torch.device(current.type)


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device=device)
    moved = []
    for x in inputs:
        moved.append(x.to(device=device))
    return moved


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = torch.device(device)
    if target.type == "cpu":
        return tensor.to("cpu")
    if tensor.device.type != "cpu" or target.type == "meta":
        return tensor.to(target)
    pinned = tensor if tensor.is_pinned() else tensor.pin_memory()
    return pinned.to(target, non_blocking=True)


def to_device(batch: Any, device: torch.device | str) -> Any:
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        moved = copy.copy(batch)
        moved.update((key, to_device(value, device)) for key, value in batch.items())
        return moved
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    if isinstance(batch, tuple):
        items = [to_device(item, device) for item in batch]
        if hasattr(batch, "_fields") and hasattr(batch, "_make"):
            return batch._make(items)
        return tuple(items)
    return batch
