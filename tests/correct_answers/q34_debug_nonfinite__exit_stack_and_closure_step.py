"""Correct: ExitStack-managed hooks, a table of lazy checks, SGD's closure protocol and
a parsed anomaly report."""

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F


def _leaves(obj: Any) -> Iterator[torch.Tensor]:
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from _leaves(value)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _leaves(item)


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    culprits: list[str] = []

    def watcher(name: str):
        def hook(module: nn.Module, args: Any, output: Any) -> None:
            if not culprits and any(not bool(torch.isfinite(t).all()) for t in _leaves(output)):
                culprits.append(name)

        return hook

    with contextlib.ExitStack() as stack:
        for name, module in model.named_modules():
            stack.callback(module.register_forward_hook(watcher(name)).remove)
        with torch.no_grad():
            model(x)
    return culprits[0] if culprits else None


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    expected = tuple(feature_shape)

    def bad_finite() -> str | None:
        found = [
            word
            for word, test in (("NaN", torch.isnan), ("inf", torch.isinf))
            if bool(test(inputs).any())
        ]
        return f"inputs contain {' and '.join(found)} values" if found else None

    def bad_label() -> str | None:
        wrong = labels[(labels < 0) | (labels >= num_classes)]
        if wrong.numel() == 0:
            return None
        return f"labels must be class indices in [0, {num_classes}), found {int(wrong[0])}"

    checks: list[tuple[type[Exception], Callable[[], str | None]]] = [
        (
            TypeError,
            lambda: (
                None
                if inputs.is_floating_point()
                else f"inputs must be floating point, got {inputs.dtype}"
            ),
        ),
        (
            ValueError,
            lambda: (
                None
                if inputs.dim() >= 1 and tuple(inputs.shape[1:]) == expected
                else f"inputs must have shape (B, *{expected}), got shape {tuple(inputs.shape)}"
            ),
        ),
        (ValueError, lambda: None if inputs.shape[0] > 0 else "inputs: the batch is empty"),
        (
            TypeError,
            lambda: (
                None
                if labels.dtype == torch.int64
                else f"labels must be int64 class indices, got {labels.dtype}"
            ),
        ),
        (
            ValueError,
            lambda: (
                None
                if tuple(labels.shape) == (inputs.shape[0],)
                else f"labels must have shape ({inputs.shape[0]},), got shape {tuple(labels.shape)}"
            ),
        ),
        (ValueError, bad_finite),
        (ValueError, bad_label),
    ]
    for error, check in checks:
        message = check()
        if message is not None:
            raise error(message)


def overfit_one_batch(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int = 50,
    lr: float = 0.5,
) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        return loss

    return [optimizer.step(closure).detach().item() for _ in range(steps)]


_NODE = re.compile(r"Function '(\w+)' returned nan values")


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    with torch.autograd.detect_anomaly():
        loss = compute_loss()
        if not bool(torch.isfinite(loss).all()):
            raise ValueError(
                f"the loss is already {loss.detach().item()} before the backward pass: "
                "the NaN was born in the forward pass"
            )
        try:
            torch.autograd.backward(loss)
        except RuntimeError as err:
            match = _NODE.search(str(err))
            if match is None:
                raise
            return match.group(1)
    return None
