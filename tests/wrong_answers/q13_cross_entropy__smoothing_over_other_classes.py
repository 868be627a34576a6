"""Wrong: label smoothing puts 1 - ε on the true class and ε/(C-1) on each other class,
instead of PyTorch's ε/C on every class, the true one included."""

import torch


def cross_entropy(logits, target, *, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    if logits.dim() != 2 or target.shape != logits.shape[:1] or target.dtype != torch.int64:
        raise ValueError("logits must be [N, C] and target [N] int64")
    if reduction not in ("mean", "sum", "none") or not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("bad reduction or label_smoothing")
    shifted = logits - logits.amax(dim=1, keepdim=True)
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    keep = target != ignore_index
    n_classes = logits.shape[1]
    true_class = torch.nn.functional.one_hot(torch.where(keep, target, 0), n_classes).bool()
    other = label_smoothing / max(n_classes - 1, 1)
    weights = torch.where(true_class, 1 - label_smoothing, other).to(logits.dtype)
    loss = torch.where(keep, -(weights * log_probs).sum(dim=1), 0.0)
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / keep.sum()
