"""A callable watcher class as the hook (with_kwargs=True); problems yielded lazily by a
generator, the first raised; zero_grad(set_to_none=False); detect_anomaly as a context, the
node's name cut out of its message with str.partition."""

from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F


def _all_finite(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        return bool(torch.isfinite(value).all())
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return all(_all_finite(item) for item in value)
    return True  # not a tensor: nothing to check


class _Watcher:
    """Forward hook that remembers the first module whose output is not all finite."""

    def __init__(self) -> None:
        self.culprit: str | None = None

    def hook_for(self, name: str) -> Callable[..., None]:
        def hook(module: nn.Module, args: Any, kwargs: Any, output: Any) -> None:
            if self.culprit is None and not _all_finite(output):
                self.culprit = name

        return hook


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    watcher = _Watcher()
    handles = []
    try:
        for name, module in model.named_modules():
            handles.append(module.register_forward_hook(watcher.hook_for(name), with_kwargs=True))
        with torch.no_grad():
            model(x)
    finally:
        while handles:
            handles.pop().remove()
    return watcher.culprit


def _problems(
    inputs: torch.Tensor, labels: torch.Tensor, num_classes: int, feature_shape: tuple[int, ...]
) -> Iterator[Exception]:
    """Each check in order, lazily: the caller stops at the first problem."""
    if not torch.is_floating_point(inputs):
        yield TypeError(f"inputs must be a floating point tensor, not {inputs.dtype}")
        return
    received = tuple(inputs.shape)
    if len(received) == 0 or received[1:] != tuple(feature_shape):
        yield ValueError(f"inputs have the wrong shape {received}")
        return
    if received[0] == 0:
        yield ValueError("inputs are an empty batch")
        return
    if labels.dtype != torch.int64:
        yield TypeError(f"labels must be int64 (torch.long), not {labels.dtype}")
        return
    if tuple(labels.shape) != received[:1]:
        yield ValueError(f"labels have the wrong shape {tuple(labels.shape)}")
        return
    kinds = [word for word, bad in (("NaN", inputs.isnan()), ("inf", inputs.isinf())) if bad.any()]
    if kinds:
        yield ValueError(f"inputs contain {' and '.join(kinds)}")
        return
    outside = (labels < 0) | (labels >= num_classes)
    if outside.any():
        value = labels[outside][0].item()
        yield ValueError(f"labels must be class indices in [0, {num_classes}), found {value}")


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    problem = next(_problems(inputs, labels, num_classes, feature_shape), None)
    if problem is not None:
        raise problem


def overfit_one_batch(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int = 50,
    lr: float = 0.5,
) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history: list[float] = []
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=False)  # zeroed in place
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        history.append(float(loss))
    return history


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    with torch.autograd.detect_anomaly(check_nan=True):
        loss = compute_loss()
        if not bool(torch.isfinite(loss).all()):
            raise ValueError("the loss is already NaN or infinite: born in the forward pass")
        try:
            loss.backward()
        except RuntimeError as error:
            # "Function 'SqrtBackward0' returned nan values in its 0th output."
            _, quote, rest = str(error).partition("Function '")
            name, closing, tail = rest.partition("'")
            if quote and closing and tail.startswith(" returned nan values"):
                return name
            raise
    return None
