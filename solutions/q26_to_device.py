"""Kata 26: move tensors and models between the CPU and an accelerator (reference answer)."""

import copy
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    # torch.accelerator covers CUDA, MPS, XPU and the rest; torch.cuda only CUDA.
    if torch.accelerator.is_available():
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None:
            return accelerator
    return torch.device("cpu")


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    # In place: parameters and buffers move, and the Parameter objects an optimizer holds
    # stay the same. The return value (the model itself) is not needed.
    model.to(device)
    # Tensors are not moved in place: keep what .to returns.
    return [x.to(device) for x in inputs]


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    target = torch.device(device)
    if target.type == "cpu":
        target = torch.device("cpu")  # "cpu:0" is the CPU too, where tensor.to would copy
    # meta holds no data and runs nothing: no accelerator, nothing to overlap with.
    if tensor.device.type == "cpu" and target.type not in ("cpu", "meta"):
        # From pinned memory the copy runs in the background; the accelerator's own
        # kernels that read it are queued after it, so nothing reads it too early.
        # pin_memory() returns the tensor itself when it is pinned already.
        return tensor.pin_memory().to(target, non_blocking=True)
    # To the CPU (or between devices): blocking, so the values are there when it returns.
    return tensor.to(target)


def to_device(batch: Any, device: torch.device | str) -> Any:
    if isinstance(batch, torch.Tensor):
        # .to returns the tensor itself when nothing changes, and never changes the dtype
        # unless asked to.
        return batch.to(device)
    if isinstance(batch, dict):
        # A shallow copy keeps the dict's class and settings (OrderedDict, a defaultdict's
        # default_factory); setting the moved values on it leaves the caller's dict alone.
        moved = copy.copy(batch)
        for key, value in batch.items():
            moved[key] = to_device(value, device)
        return moved
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        # A namedtuple's constructor takes its fields as separate arguments.
        return type(batch)(*(to_device(item, device) for item in batch))
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    # Strings, numbers, None, arrays...: not ours to move (and a str would recurse forever
    # if treated as a sequence).
    return batch
