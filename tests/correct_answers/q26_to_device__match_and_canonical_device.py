"""Correct: to_device as one match statement, copy_to comparing devices in the canonical form
an empty tensor reports."""

import copy
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    accelerator = torch.accelerator.current_accelerator()
    return accelerator if accelerator is not None else torch.device("cpu")


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device)
    return list(map(lambda t: t.to(device), inputs))


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    # An empty tensor reports the device with its index filled in ("cuda" -> "cuda:0").
    target = torch.empty(0, device=device).device
    if tensor.device == target:
        return tensor
    if tensor.device.type == "cpu" and target.type not in ("cpu", "meta"):
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
        case list():
            return [to_device(item, device) for item in batch]
        case tuple() if hasattr(type(batch), "_fields"):
            return type(batch)(*(to_device(item, device) for item in batch))
        case tuple():
            return tuple(to_device(item, device) for item in batch)
        case _:
            return batch
