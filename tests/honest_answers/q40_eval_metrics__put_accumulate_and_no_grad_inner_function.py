"""Counts with put_(accumulate=True) into an int64 matrix; F1 computed with torch.where over
every class and averaged by a count of those present; evaluate inside a no_grad-decorated
inner function, the modes kept as a list zipped back in finally."""

from collections.abc import Iterable

import torch
from torch import nn


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    if preds.ndim != 1 or targets.ndim != 1:
        raise ValueError("preds and targets must both be 1-D")
    if len(preds) != len(targets):
        raise ValueError(f"{len(preds)} predictions for {len(targets)} targets")
    p, t = preds.long(), targets.long()
    outside = (p < 0) | (p >= num_classes) | (t < 0) | (t >= num_classes)
    if bool(outside.any()):
        raise ValueError(f"labels must lie in [0, {num_classes})")
    out = p.new_zeros((num_classes, num_classes))
    out.put_(t * num_classes + p, torch.ones_like(p), accumulate=True)
    return out


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    c = confusion.long()
    if int(c.count_nonzero()) == 0:
        raise ValueError("no sample in the confusion matrix")
    tp = torch.diag(c)
    fp = c.sum(0) - tp
    fn = c.sum(1) - tp
    denominator = (2 * tp + fp + fn).to(torch.float64)
    present = denominator != 0
    f1 = torch.where(present, 2 * tp / denominator.clamp(min=1), 0.0)
    return (f1.sum() / present.sum()).to(torch.float32)


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    modules = list(model.modules())
    modes = [m.training for m in modules]

    @torch.no_grad()
    def run() -> tuple[torch.Tensor, int]:
        confusion = torch.zeros((num_classes, num_classes), dtype=torch.long, device=device)
        seen = 0
        for x, y in loader:
            y = y.to(device)
            predicted = torch.argmax(model(x.to(device)), dim=-1)
            confusion.add_(confusion_matrix(predicted, y, num_classes))
            seen += y.numel()
        return confusion, seen

    model.train(False)
    try:
        confusion, seen = run()
    finally:
        for m, mode in zip(modules, modes):
            m.training = mode
    if not seen:
        raise ValueError("no samples to evaluate")
    correct = int(confusion.trace())
    return correct / seen, confusion, float(macro_f1(confusion))
