"""Hooks bound with functools.partial, a recursive tensor walk, anomaly mode restored by hand."""

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

_NODE = re.compile(r"Function '(\w+)' returned nan values")


def _tensors_in(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors_in(item)


def _record_first(
    culprit: list[str], name: str, module: nn.Module, inputs: Any, output: Any
) -> None:
    if culprit:
        return
    if any(not bool(torch.isfinite(t).all()) for t in _tensors_in(output)):
        culprit.append(name)


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    culprit: list[str] = []
    handles = []
    try:
        for name, module in model.named_modules():
            hook = functools.partial(_record_first, culprit, name)
            handles.append(module.register_forward_hook(hook))
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return culprit[0] if culprit else None


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    if not inputs.is_floating_point():
        raise TypeError(f"inputs must be floating point, got dtype {inputs.dtype}")
    shape = tuple(inputs.shape)
    if len(shape) != 1 + len(feature_shape) or shape[1:] != tuple(feature_shape):
        raise ValueError(
            f"inputs have shape {shape}, expected (B, {', '.join(map(str, feature_shape))})"
        )
    if shape[0] == 0:
        raise ValueError("inputs: the batch is empty (B = 0)")
    if labels.dtype != torch.int64:
        raise TypeError(f"labels must be int64 class indices, got dtype {labels.dtype}")
    if tuple(labels.shape) != (shape[0],):
        raise ValueError(f"labels have shape {tuple(labels.shape)}, expected ({shape[0]},)")
    found = []
    if bool(torch.isnan(inputs).any()):
        found.append("NaN")
    if bool(torch.isinf(inputs).any()):
        found.append("inf")
    if found:
        raise ValueError(f"inputs contain {' and '.join(found)} values")
    outside = labels[(labels < 0) | (labels >= num_classes)]
    if outside.numel():
        raise ValueError(
            f"labels must be class indices in [0, {num_classes}), found {outside[0].item()}"
        )


def overfit_one_batch(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int = 50,
    lr: float = 0.5,
) -> list[float]:
    if steps <= 0:
        return []
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return history


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    was_on = torch.is_anomaly_enabled()
    checked_nan = torch.is_anomaly_check_nan_enabled()
    torch.autograd.set_detect_anomaly(True, check_nan=True)
    try:
        loss = compute_loss()
        if not bool(torch.isfinite(loss).all()):
            raise ValueError(f"the loss is already {loss.item()}: look at the forward pass")
        try:
            loss.backward()
        except RuntimeError as error:
            match = _NODE.search(str(error))
            if match is None:
                raise
            return match.group(1)
        return None
    finally:
        torch.autograd.set_detect_anomaly(was_on, check_nan=checked_nan)
