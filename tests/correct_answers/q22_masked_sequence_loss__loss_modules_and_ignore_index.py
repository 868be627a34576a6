"""Correct: the nn loss modules from a table, multi-class logits flattened to [N*d, C] with the
classes moved last first, Huber as SmoothL1 with beta 1, and the padded tokens left out through
ignore_index on a copy of the targets."""

import torch
from torch import nn

LOSSES = {
    "regression": nn.MSELoss(),
    "regression_with_outliers": nn.SmoothL1Loss(beta=1.0),
    "multiclass": nn.CrossEntropyLoss(),
    "multilabel": nn.BCEWithLogitsLoss(),
}


def task_loss(task, output, target):
    if task not in LOSSES:
        raise ValueError(f"unknown task {task!r}")
    if not torch.is_floating_point(output):
        raise ValueError("output must be floating point")
    if task == "multiclass":
        if output.ndim < 2 or target.dtype != torch.long:
            raise ValueError("multiclass wants [N, C, ...] logits and int64 targets")
        if list(target.shape) != [output.shape[0], *output.shape[2:]]:
            raise ValueError("target must be output's shape without the class dim")
        classes_last = output.movedim(1, -1).reshape(-1, output.shape[1])
        return LOSSES[task](classes_last, target.reshape(-1))
    if (target.shape, target.dtype) != (output.shape, output.dtype):
        raise ValueError("target must have output's shape and dtype")
    return LOSSES[task](output, target)


def masked_cross_entropy(logits, target, mask):
    if logits.ndim != 3 or target.dtype != torch.long or target.shape != logits.shape[:2]:
        raise ValueError("logits must be [B, T, C] and target int64 [B, T]")
    if mask.dtype != torch.bool or mask.shape != target.shape:
        raise ValueError("mask must be bool [B, T]")
    ignored = torch.where(mask, target, -100)  # a copy: the caller's target is untouched
    wide = torch.promote_types(logits.dtype, torch.float32)  # half sums overflow
    per_class_first = logits.to(wide).transpose(1, 2)  # [B, C, T]
    total = nn.functional.cross_entropy(
        per_class_first, ignored, ignore_index=-100, reduction="sum"
    )
    return (total / mask.sum().clamp(min=1)).to(logits.dtype)
