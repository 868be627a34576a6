"""Loss modules from a table of factories; real tokens by boolean indexing, summed in float32."""

from collections.abc import Callable

import torch
from torch import nn


def _check_elementwise(output: torch.Tensor, target: torch.Tensor) -> None:
    if (target.shape, target.dtype) != (output.shape, output.dtype):
        raise ValueError(
            f"target must match output: got {tuple(target.shape)} {target.dtype}, "
            f"expected {tuple(output.shape)} {output.dtype}"
        )


def _check_classes(output: torch.Tensor, target: torch.Tensor) -> None:
    if output.ndim < 2:
        raise ValueError("multiclass output must be [N, C, ...]")
    if target.dtype is not torch.int64:
        raise ValueError(f"multiclass target must be int64 class indices, got {target.dtype}")
    if target.shape != output.shape[:1] + output.shape[2:]:
        raise ValueError(f"multiclass target has shape {tuple(target.shape)}")


_TASKS: dict[str, tuple[Callable[[torch.Tensor, torch.Tensor], None], Callable[[], nn.Module]]] = {
    "regression": (_check_elementwise, nn.MSELoss),
    "regression_with_outliers": (_check_elementwise, lambda: nn.HuberLoss(delta=1.0)),
    "multiclass": (_check_classes, nn.CrossEntropyLoss),
    "multilabel": (_check_elementwise, nn.BCEWithLogitsLoss),
}


def task_loss(task: str, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    try:
        check, make_loss = _TASKS[task]
    except (KeyError, TypeError):
        raise ValueError(f"unknown task {task!r}") from None
    if not torch.is_floating_point(output):
        raise ValueError(f"output must be a floating tensor, got {output.dtype}")
    check(output, target)
    return make_loss()(output, target)


def masked_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if logits.ndim != 3:
        raise ValueError("logits must be [B, T, C]")
    batch_time = logits.shape[:2]
    if target.dtype != torch.long:
        raise ValueError(f"target must be int64, got {target.dtype}")
    if target.shape != batch_time:
        raise ValueError(f"target must be {tuple(batch_time)}, got {tuple(target.shape)}")
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be bool, got {mask.dtype}")
    if mask.shape != batch_time:
        raise ValueError(f"mask must be {tuple(batch_time)}, got {tuple(mask.shape)}")

    real_logits = logits[mask]  # [n_real, C]
    real_target = target[mask]
    n_real = real_target.numel()
    if n_real == 0:
        # the empty selection sums to 0 and keeps the result attached to logits
        # (padding may hold values whose sum is inf)
        return real_logits.sum()
    half = real_logits.dtype in (torch.float16, torch.bfloat16)
    wide = real_logits.float() if half else real_logits
    total = nn.functional.cross_entropy(wide, real_target, reduction="sum")
    return (total / n_real).to(logits.dtype)
