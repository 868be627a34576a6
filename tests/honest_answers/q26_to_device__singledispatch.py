"""functools.singledispatch on annotated helpers, a namedtuple told by its _fields."""

import copy
import functools
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


@functools.singledispatch
def _move(value: Any, device: torch.device | str) -> Any:
    return value


@_move.register
def _(value: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    return value.to(device)


@_move.register
def _(value: dict, device: torch.device | str) -> dict:
    out = copy.copy(value)
    out.update({key: _move(item, device) for key, item in value.items()})
    return out


@_move.register
def _(value: list, device: torch.device | str) -> list:
    return [_move(item, device) for item in value]


@_move.register
def _(value: tuple, device: torch.device | str) -> tuple:
    items = [_move(item, device) for item in value]
    return type(value)(*items) if hasattr(value, "_fields") else tuple(items)


def to_device(batch: Any, device: torch.device | str) -> Any:
    return _move(batch, device)


def pick_device() -> torch.device:
    found = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    return found or torch.device("cpu")


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device)
    return [_move(tensor, device) for tensor in inputs]


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = torch.device(device)
    if target.type == "cpu":
        target = torch.device("cpu")  # "cpu:0" is the one CPU too
    elif target.index is None and target.type != "meta":
        target = torch.empty(0, device=target).device  # "cuda" is the current CUDA device
    if tensor.device == target:
        return tensor
    if tensor.device.type == "cpu" and target.type not in ("cpu", "meta"):
        source = tensor if tensor.is_pinned() else tensor.pin_memory()
        return source.to(target, non_blocking=True)
    return tensor.to(target)
