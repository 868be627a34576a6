"""Pairs flattened to one int64 index counted by bincount, F1 in float64 over a boolean
selection of the classes present, and a finally block that restores each module's mode."""

from collections.abc import Iterable

import torch
from torch import nn


def _checked_labels(name: str, values: torch.Tensor, num_classes: int) -> torch.Tensor:
    if values.dim() != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(values.shape)}")
    # int64 first: uint16/32/64 have no comparisons, and a uint8 target times
    # num_classes would wrap.
    wide = values.long()
    if bool(((wide < 0) | (wide >= num_classes)).any()):
        raise ValueError(f"{name} holds a value outside [0, {num_classes})")
    return wide


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    wide_preds = _checked_labels("preds", preds, num_classes)
    wide_targets = _checked_labels("targets", targets, num_classes)
    if preds.shape != targets.shape:
        raise ValueError(
            f"preds and targets differ in length: {preds.numel()} != {targets.numel()}"
        )
    flat = wide_targets * num_classes + wide_preds
    counts = torch.bincount(flat, minlength=num_classes * num_classes)
    return counts.reshape(num_classes, num_classes)


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    counts = confusion.to(torch.int64)
    if not bool(counts.any()):
        raise ValueError("the confusion matrix holds no sample")
    tp = counts.diagonal()
    fp = counts.sum(dim=0) - tp
    fn = counts.sum(dim=1) - tp
    denominator = 2 * tp + fp + fn
    present = denominator > 0
    scores = (2 * tp[present]).double() / denominator[present].double()
    return scores.mean().to(torch.float32)


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    modes = {module: module.training for module in model.modules()}
    total = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    model.eval()
    try:
        with torch.no_grad():
            for inputs, targets in loader:
                logits = model(inputs.to(device))
                preds = logits.argmax(dim=1)
                total += confusion_matrix(preds, targets.to(device), num_classes)
    finally:
        for module, was_training in modes.items():
            module.training = was_training
    samples = int(total.sum())
    if samples == 0:
        raise ValueError("the loader yielded no sample")
    accuracy = int(total.trace()) / samples
    return accuracy, total, float(macro_f1(total))
