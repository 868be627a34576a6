"""One-hot rows multiplied in float64 (an einsum outer-product count), F1 by torch.where and a
count of the classes present, and try/finally over a dict of named submodules' modes with
no_grad; predictions from max(...).indices, samples counted batch by batch."""

from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import nn


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    if preds.dim() != 1 or targets.dim() != 1:
        raise ValueError("preds and targets must both be 1-D")
    if len(preds) != len(targets):
        raise ValueError("preds and targets differ in length")
    p = preds.long()
    t = targets.long()
    lo = torch.minimum(p.min(), t.min()) if len(p) else None
    hi = torch.maximum(p.max(), t.max()) if len(p) else None
    if lo is not None and hi is not None and (lo.item() < 0 or hi.item() >= num_classes):
        raise ValueError(f"labels must lie in [0, {num_classes})")
    rows = F.one_hot(t, num_classes).to(torch.float64)
    cols = F.one_hot(p, num_classes).to(torch.float64)
    counts = torch.einsum("nt,np->tp", rows, cols)
    return counts.round().to(torch.int64)


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    c = confusion.long()
    if c.count_nonzero() == 0:
        raise ValueError("no sample in the confusion matrix")
    tp = torch.diag(c)
    fp = c.sum(0) - tp
    fn = c.sum(1) - tp
    denom = (2 * tp + fp + fn).double()
    seen = denom > 0
    f1 = torch.where(seen, 2 * tp.double() / denom.clamp(min=1), 0.0)
    return (f1.sum() / seen.sum()).float()


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    modes = {name: m.training for name, m in model.named_modules(remove_duplicate=False)}
    confusion = torch.zeros((num_classes, num_classes), dtype=torch.long, device=device)
    samples = 0
    model.eval()
    try:
        with torch.no_grad():
            for inputs, targets in loader:
                targets = targets.to(device)
                preds = model(inputs.to(device)).max(dim=1).indices
                confusion.add_(confusion_matrix(preds, targets, num_classes))
                samples += targets.numel()
    finally:
        # named_modules() is top-down: each module's train() comes after its parents'
        for name, m in model.named_modules(remove_duplicate=False):
            m.train(modes[name])
    if samples == 0:
        raise ValueError("no sample to evaluate")
    correct = int(confusion.diagonal().sum())
    return correct / samples, confusion, macro_f1(confusion).item()
