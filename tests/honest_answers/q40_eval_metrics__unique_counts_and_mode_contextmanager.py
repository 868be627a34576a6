"""Counts by torch.unique(return_counts) written into a flat zeros tensor, F1 in float32
averaged with a float mask, and the modes kept by a contextlib.contextmanager under
inference_mode."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

import torch
from torch import nn


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    if preds.ndim != 1 or targets.ndim != 1:
        raise ValueError("preds and targets must be 1-D")
    if len(preds) != len(targets):
        raise ValueError("preds and targets must have the same length")
    both = torch.cat([preds.to(torch.int64), targets.to(torch.int64)])
    if both.numel() and (both.min().item() < 0 or both.max().item() >= num_classes):
        raise ValueError(f"labels must lie in [0, {num_classes})")
    codes = targets.to(torch.int64) * num_classes + preds.to(torch.int64)
    seen, counts = torch.unique(codes, return_counts=True)
    flat = torch.zeros(num_classes * num_classes, dtype=torch.int64, device=preds.device)
    flat[seen] = counts  # unique codes: each position written once
    return flat.view(num_classes, num_classes)


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    m = confusion.long()
    if m.count_nonzero() == 0:
        raise ValueError("empty confusion matrix")
    tp = torch.diagonal(m)
    denom = m.sum(0) + m.sum(1)  # 2 TP + FP + FN: TP is in both the row and the column
    used = (denom > 0).to(torch.float32)
    f1 = torch.where(denom > 0, 2 * tp / denom.clamp(min=1), 0).to(torch.float32)
    return (f1 * used).sum() / used.sum()


@contextlib.contextmanager
def _evaluating(model: nn.Module) -> Iterator[None]:
    saved = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        yield
    finally:
        for module, mode in saved:
            module.train(mode)


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    confusion = torch.zeros((num_classes, num_classes), dtype=torch.long, device=device)
    with _evaluating(model), torch.inference_mode():
        for inputs, targets in loader:
            predicted = model(inputs.to(device)).argmax(-1)
            confusion = confusion + confusion_matrix(predicted, targets.to(device), num_classes)
    confusion = confusion.clone()  # an ordinary tensor, usable outside inference mode
    n = confusion.sum().item()
    if n == 0:
        raise ValueError("no samples in the loader")
    correct = confusion.diagonal().sum().item()
    return correct / n, confusion, macro_f1(confusion).item()
