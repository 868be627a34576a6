"""scatter_add_ counting, F1 in float64 over a boolean selection, inference_mode, a mode table."""

from collections.abc import Iterable

import torch
from torch import nn


def _check_labels(name: str, values: torch.Tensor, num_classes: int) -> None:
    if values.dim() != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(values.shape)}")
    wide = values.long()  # min/max are not implemented for every unsigned dtype
    if wide.numel() and (wide.min() < 0 or wide.max() >= num_classes):
        raise ValueError(f"{name} has a value outside [0, {num_classes})")


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    _check_labels("preds", preds, num_classes)
    _check_labels("targets", targets, num_classes)
    if preds.shape != targets.shape:
        raise ValueError(f"lengths differ: {preds.numel()} vs {targets.numel()}")
    flat = targets.long() * num_classes + preds.long()
    counts = torch.zeros(num_classes * num_classes, dtype=torch.int64, device=preds.device)
    counts.scatter_add_(0, flat, torch.ones_like(flat))
    return counts.view(num_classes, num_classes)


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    counts = confusion.to(torch.float64)
    if not bool(counts.any()):
        raise ValueError("the confusion matrix holds no sample")
    tp = counts.diagonal()
    denominator = counts.sum(dim=0) + counts.sum(dim=1)  # 2 TP + FP + FN
    present = denominator > 0
    scores = 2 * tp[present] / denominator[present]
    return scores.mean().to(torch.float32)


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    modes = {module: module.training for module in model.modules()}
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    model.eval()
    try:
        with torch.inference_mode():
            for inputs, targets in loader:
                preds = model(inputs.to(device)).argmax(dim=1)
                confusion += confusion_matrix(preds, targets.to(device), num_classes)
    finally:
        for module, training in modes.items():
            module.training = training
    total = int(confusion.sum())
    if total == 0:
        raise ValueError("the loader yielded no sample")
    accuracy = int(confusion.trace()) / total
    return accuracy, confusion, float(macro_f1(confusion))
