"""A Mover dataclass called on each node (map over sequences, copy.copy for dicts, the namedtuple
class called with the moved fields), devices compared after resolving a missing index through
torch.get_device_module, inputs moved with operator.methodcaller."""

import copy
import dataclasses
from collections.abc import Sequence
from operator import methodcaller
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    device = torch.accelerator.current_accelerator()
    assert device is not None
    return device


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device)  # in place: the same Parameter objects, their data (and .grad) moved
    return list(map(methodcaller("to", device), inputs))


def _resolved(device: torch.device) -> torch.device:
    """The device with its index filled in where the spelling leaves it out."""
    if device.type in ("cpu", "meta"):
        return torch.device(device.type)
    if device.index is None:
        return torch.device(device.type, torch.get_device_module(device.type).current_device())
    return device


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = _resolved(torch.device(device))
    if _resolved(tensor.device) == target:
        return tensor
    if tensor.device.type == "cpu" and target.type not in ("cpu", "meta"):
        pinned = tensor if tensor.is_pinned() else tensor.pin_memory()
        return pinned.to(target, non_blocking=True)
    return tensor.to(target)


@dataclasses.dataclass(frozen=True)
class _Mover:
    device: torch.device | str

    def __call__(self, node: Any) -> Any:
        if isinstance(node, torch.Tensor):
            return node.to(self.device)
        if isinstance(node, dict):
            moved = copy.copy(node)
            for key, value in node.items():
                moved[key] = self(value)
            return moved
        if isinstance(node, tuple):
            items = map(self, node)
            if hasattr(type(node), "_fields"):
                return type(node)(*items)
            return tuple(items)
        if isinstance(node, list):
            return list(map(self, node))
        return node


def to_device(batch: Any, device: torch.device | str) -> Any:
    return _Mover(device)(batch)
