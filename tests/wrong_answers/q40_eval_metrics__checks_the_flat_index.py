"""Wrong: checks the range of the flat index t * C + p instead of each label, so a
prediction of C for target 0 (or -1 for target 1) is counted in the wrong cell."""

import torch

from solutions.q40_eval_metrics import evaluate, macro_f1


def confusion_matrix(preds, targets, num_classes):
    if preds.dim() != 1 or targets.dim() != 1 or preds.shape != targets.shape:
        raise ValueError(f"preds and targets must be 1-D of equal length, got {preds.shape}")
    index = targets.long() * num_classes + preds.long()
    if index.numel() and (index.min() < 0 or index.max() >= num_classes * num_classes):
        raise ValueError(f"class indices must lie in [0, {num_classes})")
    counts = torch.bincount(index, minlength=num_classes * num_classes)
    return counts.reshape(num_classes, num_classes)
