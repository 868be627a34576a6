"""Correct: the documented check_available form of current_accelerator, a resolved-device
comparison for copy_to, and functools.singledispatch for nested batches."""

import copy
import functools
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    found = torch.accelerator.current_accelerator(check_available=True)
    return torch.device("cpu") if found is None else found


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device=device)  # in place; the returned module is `model` itself
    return list(map(lambda t: t.to(device=device), inputs))


def _resolved(device: torch.device | str) -> torch.device:
    """The device a tensor made on `device` actually lands on (the index filled in)."""
    return torch.empty(0, device=device).device


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = _resolved(device)
    if tensor.device == target:
        return tensor
    if tensor.device.type == "cpu" and target.type not in ("cpu", "meta"):
        staged = tensor if tensor.is_pinned() else tensor.pin_memory()
        return staged.to(target, non_blocking=True)
    return tensor.to(target)


@functools.singledispatch
def _move(obj: Any, device: torch.device | str) -> Any:
    return obj


@_move.register
def _(obj: torch.Tensor, device: torch.device | str) -> Any:
    return obj.to(device)


@_move.register
def _(obj: dict, device: torch.device | str) -> Any:
    out = copy.copy(obj)
    for key, value in obj.items():
        out[key] = _move(value, device)
    return out


@_move.register
def _(obj: list, device: torch.device | str) -> Any:
    return [_move(item, device) for item in obj]


@_move.register
def _(obj: tuple, device: torch.device | str) -> Any:
    items = [_move(item, device) for item in obj]
    kind = type(obj)
    if hasattr(kind, "_fields"):  # a namedtuple
        return kind(*items)
    return tuple(items) if kind is tuple else kind(items)


def to_device(batch: Any, device: torch.device | str) -> Any:
    return _move(batch, device)
