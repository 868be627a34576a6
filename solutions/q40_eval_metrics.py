"""Kata 40: evaluation metrics over a whole loader (reference answer)."""

from collections.abc import Iterable

import torch
from torch import nn


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    if preds.dim() != 1 or targets.dim() != 1 or preds.shape != targets.shape:
        raise ValueError(
            f"preds and targets must be 1-D of equal length, got {tuple(preds.shape)} "
            f"and {tuple(targets.shape)}"
        )
    # In int64: torch has no min or max for uint16/32/64 (and a uint64 label past 2**63
    # wraps negative, which the check below refuses).
    both = torch.cat([preds, targets]).long()
    # Out-of-range labels would make bincount return a longer vector, not an error.
    if both.numel() and (both.min() < 0 or both.max() >= num_classes):
        raise ValueError(f"class indices must lie in [0, {num_classes})")
    # One index per (target, pred) pair, row-major, so one bincount counts every cell.
    index = targets.long() * num_classes + preds.long()
    counts = torch.bincount(index, minlength=num_classes * num_classes)
    return counts.reshape(num_classes, num_classes)


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    if confusion.sum() == 0:
        raise ValueError("the confusion matrix holds no sample")
    confusion = confusion.float()
    tp = confusion.diagonal()
    fp = confusion.sum(dim=0) - tp  # predicted as c, but another class
    fn = confusion.sum(dim=1) - tp  # class c, but predicted as another
    denominator = 2 * tp + fp + fn
    present = denominator > 0  # classes that appear as a target or a prediction
    return (2 * tp[present] / denominator[present]).mean()


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    # Each submodule's own mode: a model in training may hold frozen parts in eval.
    modes = {module: module.training for module in model.modules()}
    model.eval()
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    try:
        with torch.no_grad():  # no graph: less memory, and nothing to backpropagate here
            for inputs, targets in loader:
                preds = model(inputs.to(device)).argmax(dim=1)
                confusion += confusion_matrix(preds, targets.to(device), num_classes)
    finally:
        for module, training in modes.items():  # hand it back as it came, even after an error
            module.training = training
    total = int(confusion.sum())
    if total == 0:
        raise ValueError("the loader yielded no sample")
    # Metrics from the summed counts weight every sample equally, whatever the batch sizes.
    accuracy = int(confusion.diagonal().sum()) / total
    return accuracy, confusion, macro_f1(confusion).item()
