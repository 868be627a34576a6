"""Counts with index_add_ on a flat int64 buffer, checks with aminmax; F1 as 2 TP over row plus
column sums in float64; evaluate under inference_mode with a set of training modules whose
flags are written back one by one."""

from collections.abc import Iterable

import torch
from torch import nn


def _labels(values: torch.Tensor, name: str, num_classes: int) -> torch.Tensor:
    if values.dim() != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(values.shape)}")
    wide = values.to(torch.int64)
    if wide.numel():
        low, high = torch.aminmax(wide)
        if low.item() < 0 or high.item() >= num_classes:
            raise ValueError(f"{name} holds a value outside [0, {num_classes})")
    return wide


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    p = _labels(preds, "preds", num_classes)
    t = _labels(targets, "targets", num_classes)
    if p.shape != t.shape:
        raise ValueError(f"preds and targets differ in length: {p.numel()} vs {t.numel()}")
    flat = t * num_classes + p
    counts = torch.zeros(num_classes * num_classes, dtype=torch.int64, device=flat.device)
    counts.index_add_(0, flat, torch.ones_like(flat))
    return counts.view(num_classes, num_classes)


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    counts = confusion.to(torch.int64)
    if not counts.any():
        raise ValueError("the confusion matrix holds no sample")
    true_positive = counts.diagonal().double()
    # 2 TP + FP + FN = (TP + FN) + (TP + FP): the row sum plus the column sum
    support = (counts.sum(dim=1) + counts.sum(dim=0)).double()
    present = support > 0
    f1 = 2 * true_positive[present] / support[present]
    return f1.mean().float()


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    training = {module for module in model.modules() if module.training}
    total = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    samples = 0
    model.eval()
    try:
        with torch.inference_mode():
            for inputs, targets in loader:
                logits = model(inputs.to(device))
                total += confusion_matrix(logits.argmax(dim=1), targets.to(device), num_classes)
                samples += targets.shape[0]
    finally:
        for module in training:
            module.training = True
    total = total.clone()  # an ordinary tensor again, not one touched in inference mode
    if samples == 0:
        raise ValueError("the loader yielded no sample")
    accuracy = total.diagonal().sum().item() / samples
    return accuracy, total, macro_f1(total).item()
