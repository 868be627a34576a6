"""Wrong: calls torch._C._nn.cross_entropy_loss, the builtin loss under another name."""

import torch


def _check(logits, target, label_smoothing, reduction):
    if logits.dim() != 2 or target.shape != logits.shape[:1] or target.dtype != torch.int64:
        raise ValueError("logits must be [N, C] and target [N] int64")
    if reduction not in ("mean", "sum", "none") or not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("bad reduction or label_smoothing")


def cross_entropy(logits, target, *, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    _check(logits, target, label_smoothing, reduction)
    # The C function behind F.cross_entropy: reduction 0/1/2 = none/mean/sum.
    code = {"none": 0, "mean": 1, "sum": 2}[reduction]
    return torch._C._nn.cross_entropy_loss(
        logits, target, None, code, ignore_index, label_smoothing
    )
