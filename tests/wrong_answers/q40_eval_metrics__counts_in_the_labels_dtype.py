"""Wrong: counts with index_put_ into a matrix of the labels' dtype, so int32 labels give an
int32 confusion matrix."""

import torch

from solutions.q40_eval_metrics import evaluate, macro_f1

__all__ = ["confusion_matrix", "evaluate", "macro_f1"]


def confusion_matrix(preds, targets, num_classes):
    if preds.dim() != 1 or targets.dim() != 1 or preds.shape != targets.shape:
        raise ValueError(f"preds and targets must be 1-D of equal length, got {preds.shape}")
    both = torch.cat([preds, targets])
    if both.numel() and (both.min() < 0 or both.max() >= num_classes):
        raise ValueError(f"class indices must lie in [0, {num_classes})")
    counts = torch.zeros(num_classes, num_classes, dtype=preds.dtype, device=preds.device)
    ones = torch.ones_like(preds)
    return counts.index_put_((targets.long(), preds.long()), ones, accumulate=True)
