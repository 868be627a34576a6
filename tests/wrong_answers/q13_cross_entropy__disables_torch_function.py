"""Wrong: calls F.cross_entropy with torch function modes switched off (DisableTorchFunction)."""

import torch
import torch.nn.functional as F


def _check(logits, target, label_smoothing, reduction):
    if logits.dim() != 2 or target.shape != logits.shape[:1] or target.dtype != torch.int64:
        raise ValueError("logits must be [N, C] and target [N] int64")
    if reduction not in ("mean", "sum", "none") or not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("bad reduction or label_smoothing")


def cross_entropy(logits, target, *, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    _check(logits, target, label_smoothing, reduction)
    with torch._C.DisableTorchFunction():
        return F.cross_entropy(
            logits,
            target,
            ignore_index=ignore_index,
            label_smoothing=label_smoothing,
            reduction=reduction,
        )
