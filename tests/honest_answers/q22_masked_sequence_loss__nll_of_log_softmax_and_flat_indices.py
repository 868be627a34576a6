"""An if chain with smooth_l1 (beta 1) and nll_loss of log_softmax; the real tokens picked by
their flat indices (nonzero, index_select) and summed in at least float32."""

import torch
from torch.nn import functional as F

_TASKS = ("regression", "regression_with_outliers", "multiclass", "multilabel")


def _same_as_output(output: torch.Tensor, target: torch.Tensor) -> None:
    if target.shape != output.shape or target.dtype != output.dtype:
        raise ValueError(
            f"target must match output ({tuple(output.shape)}, {output.dtype}), got "
            f"({tuple(target.shape)}, {target.dtype})"
        )


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if task not in _TASKS:
        raise ValueError(f"unknown task {task!r}: expected one of {_TASKS}")
    if not output.is_floating_point():
        raise ValueError(f"output must be floating point, got {output.dtype}")
    if task == "multiclass":
        if output.dim() < 2:
            raise ValueError(f"multiclass output needs classes in dim 1, got {tuple(output.shape)}")
        if target.dtype != torch.int64:
            raise ValueError(f"multiclass target must be int64 class indices, got {target.dtype}")
        expected = output.shape[:1] + output.shape[2:]
        if target.shape != expected:
            raise ValueError(f"target must have shape {tuple(expected)}, got {tuple(target.shape)}")
        return F.nll_loss(F.log_softmax(output, dim=1), target)
    _same_as_output(output, target)
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
    batch, steps, classes = logits.shape
    if target.dtype != torch.int64:
        raise ValueError(f"target must be int64 class indices, got {target.dtype}")
    if target.shape != (batch, steps):
        raise ValueError(f"target must have shape {(batch, steps)}, got {tuple(target.shape)}")
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be bool, got {mask.dtype}")
    if mask.shape != (batch, steps):
        raise ValueError(f"mask must have shape {(batch, steps)}, got {tuple(mask.shape)}")
    rows = mask.reshape(-1).nonzero().squeeze(1)  # flat indices of the real tokens
    wide = torch.promote_types(logits.dtype, torch.float32)  # no float16 sum or count
    real_logits = logits.reshape(-1, classes).index_select(0, rows).to(wide)
    real_target = target.reshape(-1).index_select(0, rows)
    total = F.cross_entropy(real_logits, real_target, reduction="sum")
    return (total / max(rows.numel(), 1)).to(logits.dtype)  # no token: 0 / 1
