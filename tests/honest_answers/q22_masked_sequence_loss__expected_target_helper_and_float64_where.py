"""Targets checked by one helper that returns the expected shape and dtype; huber_loss; padded
positions neutralised by torch.where on a [B, C, T] layout, per-token losses summed in float64."""

import torch
from torch.nn import functional as F


def _expected_target(task: str, output: torch.Tensor) -> tuple[tuple[int, ...], torch.dtype]:
    if task == "multiclass":
        if output.ndim < 2:
            raise ValueError(f"multiclass output needs [N, C, ...], got {tuple(output.shape)}")
        return (output.shape[0], *output.shape[2:]), torch.int64
    if task in ("regression", "regression_with_outliers", "multilabel"):
        return tuple(output.shape), output.dtype
    raise ValueError(f"unknown task {task!r}")


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if not isinstance(task, str):
        raise ValueError(f"task must be a task name, got {task!r}")
    shape, dtype = _expected_target(task, output)
    if not torch.is_floating_point(output):
        raise ValueError(f"output must be a floating tensor, got {output.dtype}")
    if tuple(target.shape) != shape or target.dtype != dtype:
        raise ValueError(
            f"{task} wants a {dtype} target of shape {shape}, got {target.dtype} "
            f"of shape {tuple(target.shape)}"
        )
    if task == "regression":
        return F.mse_loss(output, target)
    if task == "regression_with_outliers":
        return F.huber_loss(output, target, delta=1.0)
    if task == "multiclass":
        return F.cross_entropy(output, target)
    return F.binary_cross_entropy_with_logits(output, target)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.ndim != 3:
        raise ValueError(f"logits must be [B, T, C], got {tuple(logits.shape)}")
    bt = tuple(logits.shape[:2])
    if target.dtype is not torch.int64:
        raise ValueError(f"target must be int64, got {target.dtype}")
    if tuple(target.shape) != bt:
        raise ValueError(f"target must be {bt}, got {tuple(target.shape)}")
    if mask.dtype is not torch.bool:
        raise ValueError(f"mask must be bool, got {mask.dtype}")
    if tuple(mask.shape) != bt:
        raise ValueError(f"mask must be {bt}, got {tuple(mask.shape)}")
    # Padded positions get logits 0 and class 0: finite, and no gradient reaches the
    # caller's logits there (torch.where passes none to the branch it did not pick).
    safe_logits = torch.where(mask.unsqueeze(-1), logits, 0).double()
    safe_target = torch.where(mask, target, 0)
    per_token = F.cross_entropy(safe_logits.transpose(1, 2), safe_target, reduction="none")
    total = torch.where(mask, per_token, 0).sum()
    count = mask.sum().clamp(min=1)  # no real token: 0 / 1
    return (total / count).to(logits.dtype)
