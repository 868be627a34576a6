"""Hook handles entered on a contextlib.ExitStack, an explicit stack walk of nested outputs and
an isnan/isinf pair; validate_batch as a list of (check, error) thunks run in order;
set_detect_anomaly saved and restored by hand, with torch.autograd.backward."""

import contextlib
import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn


def _nonfinite(output: object) -> bool:
    pending = [output]
    while pending:
        item = pending.pop()
        if isinstance(item, torch.Tensor):
            if bool(torch.isnan(item).any()) or bool(torch.isinf(item).any()):
                return True
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return False


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    first: dict[str, str] = {}

    def watcher(name: str) -> Callable[[nn.Module, object, object], None]:
        def hook(module: nn.Module, args: object, output: object) -> None:
            if "name" not in first and _nonfinite(output):
                first["name"] = name

        return hook

    with contextlib.ExitStack() as hooks, torch.no_grad():
        for name, module in model.named_modules():
            hooks.enter_context(module.register_forward_hook(watcher(name)))
        model(x)
    return first.get("name")


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    in_shape = tuple(inputs.shape)
    want = tuple(feature_shape)

    def bad_out_of_range() -> object:
        wrong = torch.logical_or(labels.lt(0), labels.ge(num_classes)).nonzero()
        return labels[wrong[0, 0]].item() if len(wrong) else None

    def nonfinite_words() -> str:
        words = []
        if inputs.isnan().any():
            words.append("NaN")
        if inputs.isinf().any():
            words.append("inf")
        return "/".join(words)

    checks: list[tuple[Callable[[], object], Callable[[], Exception]]] = [
        (
            lambda: not (inputs.dtype.is_floating_point),
            lambda: TypeError(f"inputs: expected a floating dtype, got {inputs.dtype}"),
        ),
        (
            lambda: len(in_shape) != len(want) + 1 or in_shape[1:] != want,
            lambda: ValueError(f"inputs: expected shape [B, {list(want)}], got {in_shape}"),
        ),
        (
            lambda: in_shape[0] == 0,
            lambda: ValueError("inputs: the batch is empty"),
        ),
        (
            lambda: labels.dtype is not torch.long,
            lambda: TypeError(f"labels: expected torch.int64, got {labels.dtype}"),
        ),
        (
            lambda: tuple(labels.shape) != in_shape[:1],
            lambda: ValueError(f"labels: expected shape {in_shape[:1]}, got {tuple(labels.shape)}"),
        ),
        (
            lambda: nonfinite_words() != "",
            lambda: ValueError(f"inputs hold {nonfinite_words()}"),
        ),
        (
            lambda: bad_out_of_range() is not None,
            lambda: ValueError(f"labels: {bad_out_of_range()} is not in [0, {num_classes})"),
        ),
    ]
    for failed, error in checks:
        if failed():
            raise error()


def overfit_one_batch(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int = 50,
    lr: float = 0.5,
) -> list[float]:
    losses: list[float] = []
    if steps == 0:
        return losses
    sgd = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.0, weight_decay=0.0)
    for _ in range(steps):
        model.zero_grad()
        logits = model(inputs)
        loss = F.cross_entropy(logits, targets)
        torch.autograd.backward(loss)
        sgd.step()
        losses.append(float(loss.detach().cpu()))
    return losses


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    was_on = torch.is_anomaly_enabled()
    was_checking = torch.is_anomaly_check_nan_enabled()
    torch.autograd.set_detect_anomaly(True, check_nan=True)
    try:
        loss = compute_loss()
        if not math.isfinite(loss.item()):
            raise ValueError("the loss is not finite before backward: look at the forward pass")
        try:
            torch.autograd.backward([loss])
        except RuntimeError as error:
            text = str(error)
            _head, quote, rest = text.partition("Function '")
            name, _, tail = rest.partition("'")
            if not quote or not tail.startswith(" returned nan"):
                raise
            return name.split("::")[-1]
        return None
    finally:
        torch.autograd.set_detect_anomaly(was_on, check_nan=was_checking)
