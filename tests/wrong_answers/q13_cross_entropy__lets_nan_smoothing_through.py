"""Wrong: checks label_smoothing < 0 or label_smoothing > 1, which a NaN passes: the
loss is then NaN instead of a ValueError."""

import torch


def cross_entropy(logits, target, *, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    if logits.dim() != 2 or target.shape != logits.shape[:1] or target.dtype != torch.int64:
        raise ValueError("logits must be [N, C] and target [N] int64 class indices")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    if label_smoothing < 0 or label_smoothing > 1:
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
    shifted = logits - logits.amax(dim=1, keepdim=True).detach()
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    keep = target != ignore_index
    nll = -log_probs.gather(1, torch.where(keep, target, 0).unsqueeze(1)).squeeze(1)
    loss = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
    loss = torch.where(keep, loss, 0.0)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / keep.sum()
