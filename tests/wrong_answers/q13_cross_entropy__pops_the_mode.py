"""Wrong: pops the active torch function mode (_pop_mode_temporarily) to call F.cross_entropy."""

import torch
import torch.nn.functional as F
from torch.overrides import _pop_mode_temporarily


def _check(logits, target, label_smoothing, reduction):
    if logits.dim() != 2 or target.shape != logits.shape[:1] or target.dtype != torch.int64:
        raise ValueError("logits must be [N, C] and target [N] int64")
    if reduction not in ("mean", "sum", "none") or not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("bad reduction or label_smoothing")


def cross_entropy(logits, target, *, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    _check(logits, target, label_smoothing, reduction)
    options = dict(ignore_index=ignore_index, label_smoothing=label_smoothing, reduction=reduction)
    if not torch._C._is_torch_function_mode_enabled():
        return F.cross_entropy(logits, target, **options)
    with _pop_mode_temporarily():
        return F.cross_entropy(logits, target, **options)
