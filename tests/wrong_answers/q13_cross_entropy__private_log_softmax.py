"""Wrong: takes the log-probabilities from torch._log_softmax, a private alias of log_softmax."""

import torch


def _check(logits, target, label_smoothing, reduction):
    if logits.dim() != 2 or target.shape != logits.shape[:1] or target.dtype != torch.int64:
        raise ValueError("logits must be [N, C] and target [N] int64")
    if reduction not in ("mean", "sum", "none") or not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("bad reduction or label_smoothing")


def cross_entropy(logits, target, *, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    _check(logits, target, label_smoothing, reduction)
    log_probs = torch._log_softmax(logits, 1, False)
    keep = target != ignore_index
    nll = -log_probs.gather(1, torch.where(keep, target, 0).unsqueeze(1)).squeeze(1)
    loss = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
    loss = torch.where(keep, loss, 0.0)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / keep.sum()
