"""Kata 22: the loss for the task, and a loss over padded sequences (reference answer)."""

import torch
import torch.nn.functional as F

_TASKS = ("regression", "regression_with_outliers", "multiclass", "multilabel")


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if task not in _TASKS:
        raise ValueError(f"task must be one of {_TASKS}, got {task!r}")
    if not output.is_floating_point():
        raise ValueError(f"output must be floating point, got {output.dtype}")
    if task == "multiclass":
        # Classes in dim 1, one int64 index per sample (or position): [N, C, *d] -> [N, *d].
        if output.dim() < 2:
            raise ValueError(f"output must be [N, C, ...] logits, got {tuple(output.shape)}")
        expected = (output.shape[0], *output.shape[2:])
        if target.dtype != torch.int64 or target.shape != expected:
            raise ValueError(
                f"target must be int64 class indices of shape {expected}, "
                f"got {target.dtype} {tuple(target.shape)}"
            )
        # Raw logits: cross_entropy takes the log-softmax over dim 1 itself, stably.
        return F.cross_entropy(output, target)
    # Element-wise losses: same shape (the builtins would broadcast [N, 1] against [N]
    # to [N, N] with only a warning) and dtype.
    if target.shape != output.shape or target.dtype != output.dtype:
        raise ValueError(
            f"target must have output's shape {tuple(output.shape)} and dtype {output.dtype}, "
            f"got {tuple(target.shape)} {target.dtype}"
        )
    if task == "regression":
        return F.mse_loss(output, target)
    if task == "regression_with_outliers":
        # Quadratic within delta, linear beyond: an outlier pulls with a bounded gradient.
        return F.huber_loss(output, target, delta=1.0)
    # Multi-label: one sigmoid per label, taken inside the loss from the logit, so large
    # logits neither saturate to a clamped log nor lose their gradient.
    return F.binary_cross_entropy_with_logits(output, target)


def _accumulation_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _check_mask(mask: torch.Tensor, batch_shape: torch.Size) -> None:
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be a bool tensor, got {mask.dtype}")
    if mask.shape != batch_shape:
        raise ValueError(f"mask must have shape {tuple(batch_shape)}, got {tuple(mask.shape)}")


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.dim() != 3:
        raise ValueError(f"logits must be [B, T, C], got shape {tuple(logits.shape)}")
    if target.dtype != torch.int64 or target.shape != logits.shape[:2]:
        raise ValueError(
            f"target must be int64 of shape {tuple(logits.shape[:2])}, "
            f"got {target.dtype} {tuple(target.shape)}"
        )
    _check_mask(mask, logits.shape[:2])
    # logits[mask] is [n_real, C], the classes in dim 1 as F.cross_entropy expects, and
    # the padded targets (possibly out of range) never reach it.
    # float16/bfloat16 in float32: the sum could overflow where the mean would not.
    acc = _accumulation_dtype(logits.dtype)
    total = F.cross_entropy(logits[mask].to(acc), target[mask], reduction="sum")
    # Divide by the token count of the whole batch, not per sequence; no tokens gives 0.
    return (total / mask.sum().clamp(min=1)).to(logits.dtype)
