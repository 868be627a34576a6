"""functools.singledispatch on annotated helpers, a namedtuple told by its _fields."""

import copy
import functools
from typing import Any

import torch


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
