"""Normalised device comparison by (type, index) with the current index filled in, a dict copy
refreshed with update(), functools.partial recursion over generator expressions, map for inputs."""

import copy
import functools
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    current = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    return current if current is not None else torch.device("cpu")


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    returned = model.to(device)
    assert returned is model  # Module.to works in place
    return list(map(functools.partial(torch.Tensor.to, device=device), inputs))


def _key(device: torch.device) -> tuple[str, int | None]:
    if device.type == "cpu":
        return ("cpu", None)  # "cpu" and "cpu:0" are one device
    index = device.index
    if index is None and device.type not in ("meta",):
        index = torch.accelerator.current_device_index()
    return (device.type, index)


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = torch.device(device)
    if _key(tensor.device) == _key(target):
        return tensor
    if tensor.device.type == "cpu" and target.type not in ("cpu", "meta"):
        source = tensor if tensor.is_pinned() else tensor.pin_memory()
        return source.to(target, non_blocking=True)
    return tensor.to(target, non_blocking=False)


def to_device(batch: Any, device: torch.device | str) -> Any:
    move = functools.partial(to_device, device=device)
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        fresh = copy.copy(batch)  # same class, same key order, same default_factory
        fresh.update((key, move(value)) for key, value in batch.items())
        return fresh
    if isinstance(batch, tuple):
        items = (move(item) for item in batch)
        return type(batch)(*items) if hasattr(type(batch), "_fields") else tuple(items)
    if isinstance(batch, list):
        return list(move(item) for item in batch)
    return batch
