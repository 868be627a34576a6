"""Kata 34: a loss that will not go down, or turns NaN (reference answer)."""

import re
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn


def _has_nonfinite(output) -> bool:
    if isinstance(output, torch.Tensor):
        return not bool(torch.isfinite(output).all())  # catches NaN, inf and -inf
    if isinstance(output, dict):
        return any(_has_nonfinite(value) for value in output.values())
    if isinstance(output, (list, tuple)):
        return any(_has_nonfinite(item) for item in output)
    return False


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    found: list[str] = []

    def make_hook(name: str):
        def hook(module, args, output):
            if not found and _has_nonfinite(output):
                found.append(name)  # keep only the first; hooks fire as modules finish

        return hook

    handles = [m.register_forward_hook(make_hook(name)) for name, m in model.named_modules()]
    try:
        with torch.no_grad():
            model(x)
    finally:
        # Hooks outlive the call unless removed: always take them off, errors or not.
        for handle in handles:
            handle.remove()
    return found[0] if found else None


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    if not inputs.is_floating_point():
        raise TypeError(f"inputs must be floating point, got dtype {inputs.dtype}")
    if inputs.dim() != 1 + len(feature_shape) or tuple(inputs.shape[1:]) != tuple(feature_shape):
        raise ValueError(
            f"inputs should have shape (batch, {', '.join(map(str, feature_shape))}), "
            f"got shape {tuple(inputs.shape)}"
        )
    batch = inputs.shape[0]
    if batch == 0:
        raise ValueError("the batch is empty (0 samples)")
    if labels.dtype != torch.int64:
        raise TypeError(
            f"labels must be int64 class indices, got dtype {labels.dtype}; "
            "convert them with labels.long()"
        )
    if tuple(labels.shape) != (batch,):
        raise ValueError(
            f"labels should have shape ({batch},), one per sample, got shape {tuple(labels.shape)}"
        )
    nans, infs = int(inputs.isnan().sum()), int(inputs.isinf().sum())
    if nans or infs:
        # Name only what is there: a NaN and an inf point to different bugs.
        found = [f"{n} {kind}" for n, kind in ((nans, "NaN"), (infs, "inf")) if n]
        raise ValueError(f"inputs contain {' and '.join(found)} values")
    bad = labels[(labels < 0) | (labels >= num_classes)]
    if bad.numel():
        raise ValueError(
            f"labels must be class indices in [0, {num_classes}), found {bad[0].item()}"
        )


def overfit_one_batch(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int = 50,
    lr: float = 0.5,
) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()  # backward adds to .grad: without this, steps pile up
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


# detect_anomaly's error names the node: "Function 'SqrtBackward0' returned nan values ...".
_NODE = re.compile(r"Function '(\w+)' returned nan values")


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    # The context manager puts the previous setting back however the block ends.
    with torch.autograd.detect_anomaly():
        loss = compute_loss()
        if not torch.isfinite(loss).all():
            raise ValueError(f"the loss is already {loss.item()}: the NaN comes from the forward")
        try:
            loss.backward()
        except RuntimeError as error:
            found = _NODE.search(str(error))
            if found is None:
                raise  # another error of the backward pass: not ours to hide
            return found.group(1)
    return None
