"""Wrong: takes the softmax from F.scaled_dot_product_attention (keys the logits, values the
identity), a softmax under another name."""

import torch
import torch.nn.functional as F

from solutions.q13_cross_entropy import _REDUCTIONS


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    reduction: str = "mean",
) -> torch.Tensor:
    if logits.dim() != 2:
        raise ValueError(f"logits must be [N, C], got shape {tuple(logits.shape)}")
    if target.shape != logits.shape[:1]:
        raise ValueError(
            f"target must have shape [N] = {tuple(logits.shape[:1])}, got {tuple(target.shape)}"
        )
    if target.dtype != torch.int64:
        raise ValueError(f"target must hold int64 class indices, got {target.dtype}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")

    # Shifting a row by a constant does not change its softmax; shifting by the row max
    # makes every exponent <= 0 (no overflow) and one of them exactly 0 (no log of 0).
    # The shift is a constant for autograd, so detach it.
    # Attention with one query of ones, keys = the logits and values = the identity is the
    # softmax of each row. Its largest probability is >= 1/C, so its log is finite, and
    # logsumexp = max - log(p_max).
    n, c = logits.shape
    probs = F.scaled_dot_product_attention(
        logits.new_ones(n, 1, 1),
        logits.unsqueeze(-1),
        torch.eye(c, dtype=logits.dtype, device=logits.device).expand(n, c, c),
        scale=1.0,
    ).squeeze(1)
    top = logits.argmax(dim=1, keepdim=True)
    lse = logits.gather(1, top) - probs.gather(1, top).log()
    log_probs = logits - lse

    keep = target != ignore_index
    # An ignored target (such as -100) is not a valid index: gather class 0 there
    # instead and drop that sample's loss below.
    safe_target = torch.where(keep, target, 0)
    nll = -log_probs.gather(1, safe_target.unsqueeze(1)).squeeze(1)
    # Smoothing mixes in the uniform distribution over all C classes: ε * mean(-log p).
    loss = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
    # torch.where (not a multiplication by the mask) sets the ignored samples to 0.
    loss = torch.where(keep, loss, 0.0)

    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    # Divide by the samples that count; with none left this is 0/0 = nan, as in PyTorch.
    return loss.sum() / keep.sum()
