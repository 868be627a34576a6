"""The device spelled canonically by an empty tensor created there, a dataclass mover whose rules
are (predicate, handler) pairs tried in order, keyword .to(device=)."""

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn


def pick_device() -> torch.device:
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    accelerator = torch.accelerator.current_accelerator()
    assert accelerator is not None
    return torch.device(accelerator.type, torch.accelerator.current_device_index())


def place_for_training(
    model: nn.Module, inputs: Sequence[torch.Tensor], device: torch.device | str
) -> list[torch.Tensor]:
    model.to(device=device)  # in place; the return value is `model` again
    moved: list[torch.Tensor] = []
    for tensor in inputs:
        moved.append(tensor.to(device=device))
    return moved


def _is_accelerator(device: torch.device) -> bool:
    return device.type not in ("cpu", "meta")


def copy_to(tensor: torch.Tensor, device: torch.device | str) -> torch.Tensor:
    # A tensor created on `device` reports it the way tensors do: "cpu:0" as cpu, "cuda" with
    # the current index. (Tensor.to alone would copy a CPU tensor asked to go to "cpu:0".)
    target = torch.empty(0, device=device).device
    if tensor.device == target:
        return tensor
    if tensor.device.type == "cpu" and _is_accelerator(target):
        pinned = tensor if tensor.is_pinned() else tensor.pin_memory()
        return pinned.to(target, non_blocking=True)
    return tensor.to(target)  # every other copy blocks


@dataclass
class _Mover:
    device: torch.device | str
    rules: list[tuple[Callable[[Any], bool], Callable[[Any], Any]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rules = [
            (lambda b: isinstance(b, torch.Tensor), self._tensor),
            (lambda b: isinstance(b, dict), self._dict),
            (lambda b: isinstance(b, tuple) and hasattr(type(b), "_fields"), self._namedtuple),
            (lambda b: isinstance(b, tuple), self._tuple),
            (lambda b: isinstance(b, list), self._list),
        ]

    def __call__(self, batch: Any) -> Any:
        for matches, handle in self.rules:
            if matches(batch):
                return handle(batch)
        return batch

    def _tensor(self, t: torch.Tensor) -> torch.Tensor:
        return t.to(self.device)

    def _dict(self, d: dict[Any, Any]) -> dict[Any, Any]:
        out = d.copy() if type(d) is dict else copy.copy(d)
        for key in d:
            out[key] = self(d[key])
        return out

    def _namedtuple(self, nt: Any) -> Any:
        return type(nt)(*(self(item) for item in nt))

    def _tuple(self, t: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(self(item) for item in t)

    def _list(self, items: list[Any]) -> list[Any]:
        return [self(item) for item in items]


def to_device(batch: Any, device: torch.device | str) -> Any:
    return _Mover(device)(batch)
