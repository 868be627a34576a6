"""softplus(z) = max(z, 0) + log1p(exp(min(z, 0) - max(z, 0))) from a minimum/maximum pair,
pos_weight expanded with torch.broadcast_to (its RuntimeError raised as ValueError), the mean
written as sum / numel."""

import torch


def _softplus(z: torch.Tensor) -> torch.Tensor:
    zero = torch.zeros_like(z)
    high, low = torch.maximum(z, zero), torch.minimum(z, zero)
    # low - high = -|z| <= 0: exp never overflows; at z = 0 both ties split, slope 1/2.
    return high + torch.log1p(torch.exp(low - high))


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if reduction not in {"mean", "sum", "none"}:
        raise ValueError(f"unknown reduction {reduction!r}")
    if target.size() != logits.size():
        raise ValueError(
            f"target size {list(target.size())} differs from logits size {list(logits.size())}"
        )
    weight = None
    if pos_weight is not None:
        try:
            weight = torch.broadcast_to(pos_weight, logits.shape)
        except RuntimeError as err:
            raise ValueError(
                f"pos_weight {list(pos_weight.shape)} does not fit logits {list(logits.shape)}"
            ) from err

    positive = _softplus(-logits) * target
    if weight is not None:
        positive = positive * weight
    loss = positive + _softplus(logits) * (1 - target)
    if reduction == "none":
        return loss
    total = loss.sum()
    return total if reduction == "sum" else total / loss.numel()
