"""Correct: counts the pairs with index_put_(..., accumulate=True) (torch.bincount is a hint,
not a rule)."""

import torch

from solutions.q40_eval_metrics import evaluate, macro_f1  # the rest as in the reference


def confusion_matrix(preds, targets, num_classes):
    if preds.dim() != 1 or targets.dim() != 1 or preds.shape != targets.shape:
        raise ValueError("preds and targets must be 1-D of equal length")
    both = torch.cat([preds, targets]).long()  # torch has no min or max for uint16/32/64
    if both.numel() and (both.min() < 0 or both.max() >= num_classes):
        raise ValueError(f"class indices must lie in [0, {num_classes})")
    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=preds.device)
    ones = torch.ones(preds.shape[0], dtype=torch.int64, device=preds.device)
    return counts.index_put_((targets.long(), preds.long()), ones, accumulate=True)
