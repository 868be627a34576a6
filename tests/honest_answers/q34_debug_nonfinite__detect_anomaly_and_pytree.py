"""Outputs flattened with torch.utils._pytree, detect_anomaly as a context manager, labels
checked through their min and max."""

import re
from collections.abc import Callable

import torch
import torch.nn.functional as F
import torch.utils._pytree as pytree
from torch import nn


def _all_finite(output: object) -> bool:
    leaves = pytree.tree_leaves(output)
    tensors = [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]
    return all(bool(torch.isfinite(t).all()) for t in tensors)


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    order: list[str] = []

    def make_hook(name: str) -> Callable[[nn.Module, object, object], None]:
        def hook(module: nn.Module, args: object, output: object) -> None:
            if not order and not _all_finite(output):
                order.append(name)

        return hook

    handles = []
    try:
        for name, module in model.named_modules():
            handles.append(module.register_forward_hook(make_hook(name)))
        with torch.no_grad():
            model(x)
    finally:
        while handles:
            handles.pop().remove()
    return order[0] if order else None


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    in_shape = tuple(inputs.shape)
    if inputs.dtype.is_floating_point is False:
        raise TypeError(f"inputs have dtype {inputs.dtype}; a floating dtype is expected")
    if inputs.ndim != len(feature_shape) + 1 or in_shape[1:] != tuple(feature_shape):
        raise ValueError(f"inputs have the wrong shape {in_shape} for {tuple(feature_shape)}")
    if in_shape[0] == 0:
        raise ValueError("inputs: empty batch")
    if labels.dtype != torch.int64:
        raise TypeError(f"labels have dtype {labels.dtype}; int64 is expected")
    if tuple(labels.shape) != in_shape[:1]:
        raise ValueError(f"labels have the wrong shape {tuple(labels.shape)}")
    kinds = [
        word
        for word, present in (("NaN", inputs.isnan().any()), ("inf", inputs.isinf().any()))
        if bool(present)
    ]
    if kinds:
        raise ValueError("inputs hold " + " and ".join(kinds))
    low, high = labels.min().item(), labels.max().item()
    if low < 0:
        raise ValueError(f"labels must be class indices in [0, {num_classes}), found {low}")
    if high >= num_classes:
        raise ValueError(f"labels must be class indices in [0, {num_classes}), found {high}")


def overfit_one_batch(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int = 50,
    lr: float = 0.5,
) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.0, weight_decay=0.0)
    losses = []
    for _ in range(steps):
        model.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(inputs), targets)
        losses.append(float(loss.detach()))
        loss.backward()
        optimizer.step()
    return losses


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    with torch.autograd.detect_anomaly(check_nan=True):
        loss = compute_loss()
        if not torch.isfinite(loss).all():
            raise ValueError("the loss is not finite before backward: the forward pass made it")
        try:
            loss.backward()
        except RuntimeError as err:
            found = re.search(r"Function '([A-Za-z0-9_]+)' returned nan", str(err))
            if found:
                return found.group(1)
            raise
    return None
