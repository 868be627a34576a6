"""A table from task name to (target check, builtin loss), and the real tokens picked out by
boolean indexing, summed in a wider dtype and divided by a count kept in int64."""

from collections.abc import Callable

import torch
import torch.nn.functional as F

Check = Callable[[torch.Tensor, torch.Tensor], str | None]


def _same_as_output(output: torch.Tensor, target: torch.Tensor) -> str | None:
    if target.shape != output.shape or target.dtype != output.dtype:
        return (
            f"target {tuple(target.shape)} {target.dtype} must match "
            f"output {tuple(output.shape)} {output.dtype}"
        )
    return None


def _class_indices(output: torch.Tensor, target: torch.Tensor) -> str | None:
    if output.dim() < 2:
        return f"multiclass output needs a class dim 1, got {output.dim()} dims"
    if target.dtype != torch.int64:
        return f"multiclass target must be int64 class indices, got {target.dtype}"
    expected = output.shape[:1] + output.shape[2:]
    if target.shape != expected:
        return f"target shape {tuple(target.shape)}, expected {tuple(expected)}"
    return None


LOSSES: dict[str, tuple[Check, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]]] = {
    "regression": (_same_as_output, F.mse_loss),
    "regression_with_outliers": (_same_as_output, lambda o, t: F.huber_loss(o, t, delta=1.0)),
    "multiclass": (_class_indices, F.cross_entropy),
    "multilabel": (_same_as_output, F.binary_cross_entropy_with_logits),
}


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if task not in LOSSES:
        raise ValueError(f"unknown task {task!r}; expected one of {sorted(LOSSES)}")
    if not output.is_floating_point():
        raise ValueError(f"output must be floating point, got {output.dtype}")
    check, loss = LOSSES[task]
    if (problem := check(output, target)) is not None:
        raise ValueError(problem)
    return loss(output, target)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.dim() != 3:
        raise ValueError(f"logits must be [B, T, C], got {logits.dim()} dims")
    batch_time = logits.shape[:2]
    if target.dtype != torch.int64:
        raise ValueError(f"target must be int64, got {target.dtype}")
    if target.shape != batch_time:
        raise ValueError(f"target must be {tuple(batch_time)}, got {tuple(target.shape)}")
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be bool, got {mask.dtype}")
    if mask.shape != batch_time:
        raise ValueError(f"mask must be {tuple(batch_time)}, got {tuple(mask.shape)}")
    wide = torch.promote_types(logits.dtype, torch.float32)
    real_logits = logits[mask].to(wide)  # [n_real, C]
    total = F.cross_entropy(real_logits, target[mask], reduction="sum")
    count = mask.sum().clamp_min(1)  # int64: no overflow, and 0 tokens give 0 / 1
    return (total / count).to(logits.dtype)
