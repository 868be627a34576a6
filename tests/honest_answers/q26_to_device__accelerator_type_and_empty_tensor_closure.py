"""The accelerator recognised as the machine's current accelerator type (torch.accelerator),
"same device" decided by comparing the tensor's device with an empty tensor made on the target,
to_device as a recursive closure with type checks ordered namedtuple first."""

import copy
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    accelerator = (
        torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    )
    return accelerator if accelerator is not None else torch.device("cpu")


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device=device)
    return [tensor.to(device=device) for tensor in inputs]


def _is_accelerator(device: torch.device) -> bool:
    current = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    return current is not None and device.type == current.type


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = torch.device(device)
    if tensor.device.type == target.type and (
        target.type in ("cpu", "meta") or tensor.device == torch.empty(0, device=target).device
    ):
        return tensor
    if tensor.device.type == "cpu" and _is_accelerator(target):
        source = tensor if tensor.is_pinned() else tensor.pin_memory()
        return source.to(target, non_blocking=True)
    return tensor.to(target)


def to_device(batch: Any, device: torch.device | str) -> Any:
    def move(node: Any) -> Any:
        if isinstance(node, torch.Tensor):
            return node.to(device)
        if isinstance(node, tuple) and hasattr(node, "_fields"):
            return type(node)(*(move(item) for item in node))
        if isinstance(node, tuple):
            return tuple(move(item) for item in node)
        if isinstance(node, list):
            return [move(item) for item in node]
        if isinstance(node, dict):
            out = node.copy() if type(node) is dict else copy.copy(node)
            for key in out:
                out[key] = move(node[key])
            return out
        return node

    return move(batch)
