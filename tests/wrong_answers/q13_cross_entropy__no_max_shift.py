"""Wrong: takes log(sum(exp(logits))) without subtracting the row max, so exp() overflows."""

import torch


def cross_entropy(logits, target, *, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    if logits.dim() != 2 or target.shape != logits.shape[:1] or target.dtype != torch.int64:
        raise ValueError("logits must be [N, C] and target [N] int64")
    if reduction not in ("mean", "sum", "none") or not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("bad reduction or label_smoothing")
    log_probs = logits - logits.exp().sum(dim=1, keepdim=True).log()
    keep = target != ignore_index
    nll = -log_probs.gather(1, torch.where(keep, target, 0).unsqueeze(1)).squeeze(1)
    loss = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
    loss = torch.where(keep, loss, 0.0)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / keep.sum()
