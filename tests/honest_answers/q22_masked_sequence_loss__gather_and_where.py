"""Early returns per task; the masked loss by log_softmax + gather and torch.where."""

import torch
import torch.nn.functional as F

_ELEMENTWISE = ("regression", "regression_with_outliers", "multilabel")


def _same_layout(output: torch.Tensor, target: torch.Tensor, task: str) -> None:
    if target.shape != output.shape:
        raise ValueError(f"{task}: target shape {tuple(target.shape)} != {tuple(output.shape)}")
    if target.dtype != output.dtype:
        raise ValueError(f"{task}: target dtype {target.dtype} != output dtype {output.dtype}")


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if task not in (*_ELEMENTWISE, "multiclass"):
        raise ValueError(f"unknown task {task!r}")
    if not output.is_floating_point():
        raise ValueError(f"output must be floating point, got {output.dtype}")

    if task == "multiclass":
        if output.dim() < 2:
            raise ValueError("multiclass output needs a class dim 1")
        if target.dtype != torch.int64:
            raise ValueError(f"multiclass target must be int64, got {target.dtype}")
        expected = (output.shape[0], *output.shape[2:])
        if tuple(target.shape) != expected:
            raise ValueError(f"multiclass target shape {tuple(target.shape)} != {expected}")
        return F.cross_entropy(output, target)

    _same_layout(output, target, task)
    if task == "regression":
        return F.mse_loss(output, target)
    if task == "regression_with_outliers":
        return F.smooth_l1_loss(output, target, beta=1.0)
    return F.binary_cross_entropy_with_logits(output, target)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.dim() != 3:
        raise ValueError(f"logits must be [B, T, C], got {tuple(logits.shape)}")
    if target.dtype != torch.int64:
        raise ValueError(f"target must be int64, got {target.dtype}")
    if target.shape != logits.shape[:2]:
        raise ValueError(f"target shape {tuple(target.shape)} != {tuple(logits.shape[:2])}")
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be bool, got {mask.dtype}")
    if mask.shape != logits.shape[:2]:
        raise ValueError(f"mask shape {tuple(mask.shape)} != {tuple(logits.shape[:2])}")

    # accumulate in at least float32: half-precision sums and counts overflow
    work_dtype = torch.promote_types(logits.dtype, torch.float32)
    log_probs = torch.log_softmax(logits.to(work_dtype), dim=-1)
    safe_target = torch.where(mask, target, torch.zeros_like(target))
    token_nll = -log_probs.gather(-1, safe_target.unsqueeze(-1)).squeeze(-1)
    total = torch.where(mask, token_nll, torch.zeros_like(token_nll)).sum()
    count = mask.sum().clamp(min=1).to(work_dtype)
    return (total / count).to(logits.dtype)
