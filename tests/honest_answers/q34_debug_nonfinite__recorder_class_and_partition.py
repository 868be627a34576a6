"""A recorder class whose bound method is the forward hook, checks as early returns, training
steps in a list comprehension, set_detect_anomaly with finally and the node's name cut out with
str.partition."""

from collections.abc import Callable, Iterator

import torch
import torch.nn.functional as F
from torch import nn


def _tensors_in(value: object) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _tensors_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(item)


class _FirstNonFinite:
    def __init__(self) -> None:
        self.name: str | None = None

    def hook_for(self, name: str) -> Callable[[nn.Module, object, object], None]:
        def hook(module: nn.Module, inputs: object, output: object) -> None:
            self.record(name, output)

        return hook

    def record(self, name: str, output: object) -> None:
        if self.name is not None:
            return
        if any(not bool(torch.isfinite(t).all()) for t in _tensors_in(output)):
            self.name = name


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    recorder = _FirstNonFinite()
    handles = []
    try:
        for name, module in model.named_modules():
            handles.append(module.register_forward_hook(recorder.hook_for(name)))
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return recorder.name


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    if not inputs.is_floating_point():
        raise TypeError(f"inputs must be floating point, got {inputs.dtype}")
    expected = tuple(feature_shape)
    if inputs.dim() != len(expected) + 1 or tuple(inputs.shape[1:]) != expected:
        raise ValueError(f"inputs have shape {tuple(inputs.shape)}, expected (B, *{expected})")
    batch = inputs.shape[0]
    if batch == 0:
        raise ValueError("inputs: the batch is empty (B = 0)")
    if labels.dtype != torch.int64:
        raise TypeError(f"labels must be int64 class indices, got {labels.dtype}")
    if labels.shape != (batch,):
        raise ValueError(f"labels have shape {tuple(labels.shape)}, expected ({batch},)")
    found = [
        word
        for word, test in (("NaN", torch.isnan), ("inf", torch.isinf))
        if bool(test(inputs).any())
    ]
    if found:
        raise ValueError(f"inputs hold {' and '.join(found)} values")
    outside = labels[(labels < 0) | (labels >= num_classes)]
    if outside.numel():
        raise ValueError(
            f"labels must be class indices in [0, {num_classes}), found {int(outside[0])}"
        )


def overfit_one_batch(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int = 50,
    lr: float = 0.5,
) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def one_step() -> float:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss.item()

    return [one_step() for _ in range(steps)]


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    was_on, was_checking = torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()
    torch.autograd.set_detect_anomaly(True)
    try:
        loss = compute_loss()
        if not bool(torch.isfinite(loss).all()):
            raise ValueError(
                f"the loss is already {loss.item()}: the NaN was born in the forward pass"
            )
        try:
            loss.backward()
        except RuntimeError as error:
            # "Function 'SqrtBackward0' returned nan values in its 0th output."
            _, quote, rest = str(error).partition("Function '")
            name, _sep, tail = rest.partition("'")
            if not quote or not tail.startswith(" returned nan"):
                raise
            return name
        return None
    finally:
        torch.autograd.set_detect_anomaly(was_on, check_nan=was_checking)
