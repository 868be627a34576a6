"""A str Enum whose lookup raises ValueError; ignore_index with a float32 sum."""

import functools
from collections.abc import Callable
from enum import Enum

import torch
import torch.nn.functional as F


class Task(str, Enum):
    REGRESSION = "regression"
    REGRESSION_WITH_OUTLIERS = "regression_with_outliers"
    MULTICLASS = "multiclass"
    MULTILABEL = "multilabel"


_LOSSES: dict[Task, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    Task.REGRESSION: F.mse_loss,
    Task.REGRESSION_WITH_OUTLIERS: functools.partial(F.huber_loss, delta=1.0),
    Task.MULTICLASS: F.cross_entropy,
    Task.MULTILABEL: F.binary_cross_entropy_with_logits,
}


def _check(kind: Task, output: torch.Tensor, target: torch.Tensor) -> None:
    if not output.is_floating_point():
        raise ValueError(f"output must be floating point, got {output.dtype}")
    if kind is Task.MULTICLASS:
        if output.dim() < 2:
            raise ValueError("multiclass output needs a class dimension (dim 1)")
        expected = output.shape[:1] + output.shape[2:]
        if target.dtype != torch.int64 or target.shape != expected:
            raise ValueError(f"multiclass target must be int64 of shape {tuple(expected)}")
    elif target.shape != output.shape or target.dtype != output.dtype:
        raise ValueError(f"{kind.value} target must match output's shape and dtype")


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Look the task up in the enum, validate, then call the matching builtin."""
    kind = Task(task)  # ValueError for any other string
    _check(kind, output, target)
    return _LOSSES[kind](output, target)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """Padded targets become ignore_index; sum in float32 and divide by the integer count."""
    if logits.dim() != 3:
        raise ValueError(f"logits must be [B, T, C], got {tuple(logits.shape)}")
    bt = logits.shape[:2]
    if target.dtype != torch.int64 or target.shape != bt:
        raise ValueError(f"target must be int64 of shape {tuple(bt)}")
    if mask.dtype != torch.bool or mask.shape != bt:
        raise ValueError(f"mask must be bool of shape {tuple(bt)}")
    ignore = -100
    flat_logits = logits.reshape(-1, logits.shape[-1]).to(
        torch.promote_types(logits.dtype, torch.float32)
    )
    flat_target = torch.where(mask, target, ignore).reshape(-1)
    total = F.cross_entropy(flat_logits, flat_target, ignore_index=ignore, reduction="sum")
    count = mask.sum().clamp_min(1)
    return (total / count).to(logits.dtype)
