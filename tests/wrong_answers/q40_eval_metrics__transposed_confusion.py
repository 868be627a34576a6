"""Wrong: puts predictions on the rows and targets on the columns."""

import torch

from solutions.q40_eval_metrics import evaluate, macro_f1  # the rest as in the reference


def confusion_matrix(preds, targets, num_classes):
    if preds.dim() != 1 or preds.shape != targets.shape:
        raise ValueError("preds and targets must be 1-D of equal length")
    both = torch.cat([preds, targets])
    if both.numel() and (both.min() < 0 or both.max() >= num_classes):
        raise ValueError("class index out of range")
    index = preds.long() * num_classes + targets.long()
    return torch.bincount(index, minlength=num_classes**2).reshape(num_classes, num_classes)
