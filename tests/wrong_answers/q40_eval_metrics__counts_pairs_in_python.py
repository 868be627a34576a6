"""Wrong: counts the pairs in Python (collections.Counter over tolist()), one step per sample."""

from collections import Counter

import torch

from solutions.q40_eval_metrics import evaluate, macro_f1


def confusion_matrix(preds, targets, num_classes):
    if preds.dim() != 1 or targets.dim() != 1 or preds.shape != targets.shape:
        raise ValueError("preds and targets must be 1-D of equal length")
    both = torch.cat([preds, targets])
    if both.numel() and (both.min() < 0 or both.max() >= num_classes):
        raise ValueError(f"class indices must lie in [0, {num_classes})")
    pairs = Counter(zip(targets.tolist(), preds.tolist(), strict=True))
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64)
    if pairs:
        where = torch.tensor(list(pairs))
        confusion[where[:, 0], where[:, 1]] = torch.tensor(list(pairs.values()))
    return confusion.to(preds.device)
