"""Correct: a table of losses, and a masked loss from a gathered log_softmax and where."""

import torch
import torch.nn.functional as F

_ELEMENTWISE = {
    "regression": F.mse_loss,
    "regression_with_outliers": F.smooth_l1_loss,
    "multilabel": F.binary_cross_entropy_with_logits,
}


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if task != "multiclass" and task not in _ELEMENTWISE:
        raise ValueError(f"unknown task {task!r}")
    if not torch.is_floating_point(output):
        raise ValueError("output must be floating")
    if task == "multiclass":
        if output.ndim < 2:
            raise ValueError("output needs a class dim")
        wanted = output.shape[:1] + output.shape[2:]
        if target.dtype != torch.long or target.shape != wanted:
            raise ValueError("target must be int64 indices")
        return F.cross_entropy(output, target)
    if (target.shape, target.dtype) != (output.shape, output.dtype):
        raise ValueError("target must match output")
    return _ELEMENTWISE[task](output, target)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.ndim != 3:
        raise ValueError("logits must be 3-D")
    batch = logits.shape[:2]
    if target.dtype != torch.long or target.shape != batch:
        raise ValueError("target must be int64 [B, T]")
    if mask.dtype != torch.bool or mask.shape != batch:
        raise ValueError("mask must be bool [B, T]")
    wide = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    safe = torch.where(mask, target, torch.zeros_like(target))
    picked = wide.log_softmax(dim=-1).gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    total = torch.where(mask, -picked, torch.zeros_like(picked)).sum()
    count = mask.sum().clamp(min=1)
    return (total / count).to(logits.dtype)
