"""pick_device asks current_accelerator(check_available=True) and falls back on None;
copy_to fills in the accelerator's current index before comparing devices; to_device rebuilds
namedtuples by keyword from _asdict() and dicts by copy.copy plus update."""

import copy
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    # None unless torch.accelerator.is_available(): then the CPU.
    accelerator = torch.accelerator.current_accelerator(check_available=True)
    return accelerator if accelerator is not None else torch.device("cpu")


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    target = torch.device(device)
    model.to(target)
    moved: list[torch.Tensor] = []
    for tensor in inputs:
        moved.append(tensor.to(target))
    return moved


def _same_device(a: torch.device, b: torch.device) -> bool:
    if a.type != b.type:
        return False
    if a.type in ("cpu", "meta"):
        return True
    current = torch.get_device_module(a.type).current_device()
    return (current if a.index is None else a.index) == (current if b.index is None else b.index)


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = torch.device(device)
    if _same_device(tensor.device, target):
        return tensor
    if tensor.device.type == "cpu" and target.type not in {"cpu", "meta"}:
        if not tensor.is_pinned():
            tensor = tensor.pin_memory()
        return tensor.to(target, non_blocking=True)
    return tensor.to(target, non_blocking=False)


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def to_device(batch: Any, device: torch.device | str) -> Any:
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        out = copy.copy(batch)
        out.update((key, to_device(value, device)) for key, value in batch.items())
        return out
    if _is_namedtuple(batch):
        fields = {name: to_device(value, device) for name, value in batch._asdict().items()}
        return type(batch)(**fields)
    if isinstance(batch, (list, tuple)):
        items = [to_device(item, device) for item in batch]
        return items if isinstance(batch, list) else tuple(items)
    return batch
