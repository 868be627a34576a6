"""Wrong: checks that preds is 1-D and that both hold as many elements, so targets of shape
(N, 1) pass and are flattened."""

import torch

from solutions.q40_eval_metrics import evaluate, macro_f1

__all__ = ["confusion_matrix", "evaluate", "macro_f1"]


def confusion_matrix(preds, targets, num_classes):
    if preds.dim() != 1 or preds.numel() != targets.numel():
        raise ValueError(f"preds and targets must be 1-D of equal length, got {preds.shape}")
    targets = targets.reshape(-1)
    both = torch.cat([preds, targets])
    if both.numel() and (both.min() < 0 or both.max() >= num_classes):
        raise ValueError(f"class indices must lie in [0, {num_classes})")
    index = targets.long() * num_classes + preds.long()
    counts = torch.bincount(index, minlength=num_classes * num_classes)
    return counts.reshape(num_classes, num_classes)
