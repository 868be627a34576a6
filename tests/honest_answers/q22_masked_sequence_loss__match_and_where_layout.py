"""task_loss as a match statement with a validator per task, masked_cross_entropy on the
[B, C, T] layout with torch.where in place of boolean indexing."""

import torch
import torch.nn.functional as F


def _same_as_output(output: torch.Tensor, target: torch.Tensor) -> None:
    if target.shape != output.shape or target.dtype != output.dtype:
        raise ValueError(
            f"target must match output's shape {tuple(output.shape)} and dtype {output.dtype}, "
            f"got {tuple(target.shape)} and {target.dtype}"
        )


def _class_indices(output: torch.Tensor, target: torch.Tensor) -> None:
    if output.dim() < 2:
        raise ValueError(f"multiclass output needs a class dim 1, got shape {tuple(output.shape)}")
    if target.dtype != torch.int64:
        raise ValueError(f"multiclass target must be int64 class indices, got {target.dtype}")
    expected = output.shape[:1] + output.shape[2:]
    if target.shape != expected:
        raise ValueError(
            f"multiclass target must have shape {tuple(expected)}, got {tuple(target.shape)}"
        )


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if task not in ("regression", "regression_with_outliers", "multiclass", "multilabel"):
        raise ValueError(f"unknown task {task!r}")
    if not output.is_floating_point():
        raise ValueError(f"output must be floating point, got {output.dtype}")
    match task:
        case "regression":
            _same_as_output(output, target)
            return F.mse_loss(output, target)
        case "regression_with_outliers":
            _same_as_output(output, target)
            return F.smooth_l1_loss(output, target, beta=1.0)
        case "multiclass":
            _class_indices(output, target)
            return F.cross_entropy(output, target)
        case _:
            _same_as_output(output, target)
            return F.binary_cross_entropy_with_logits(output, target)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.dim() != 3:
        raise ValueError(f"logits must be [B, T, C], got shape {tuple(logits.shape)}")
    leading = logits.shape[:2]
    if target.dtype != torch.int64:
        raise ValueError(f"target must be int64, got {target.dtype}")
    if target.shape != leading:
        raise ValueError(f"target must have shape {tuple(leading)}, got {tuple(target.shape)}")
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be bool, got {mask.dtype}")
    if mask.shape != leading:
        raise ValueError(f"mask must have shape {tuple(leading)}, got {tuple(mask.shape)}")

    # Padding is replaced before the loss sees it: its logits by zeros (so no gradient reaches
    # them and no inf appears), its targets by class 0 (so none is out of range).
    safe_logits = torch.where(
        mask.unsqueeze(-1), logits, torch.zeros((), dtype=logits.dtype, device=logits.device)
    )
    safe_target = torch.where(
        mask, target, torch.zeros((), dtype=target.dtype, device=target.device)
    )
    per_token = F.cross_entropy(safe_logits.movedim(-1, 1), safe_target, reduction="none")
    # 16-bit losses are summed in float32 (their sum and share may overflow or underflow).
    wide = torch.promote_types(logits.dtype, torch.float32)
    kept = torch.where(mask, per_token.to(wide), torch.zeros((), dtype=wide, device=logits.device))
    total = kept.sum()
    count = mask.sum().clamp(min=1)
    return (total / count).to(logits.dtype)
