"""Softplus written as a two-element log-sum-exp with the max shift, the max and the
min of (z, 0) taken by amax/amin over a stacked pair (ties split evenly: slope 1/2 at 0)."""

import torch


def _softplus(z: torch.Tensor) -> torch.Tensor:
    pair = torch.stack((z, torch.zeros_like(z)))
    high = pair.amax(dim=0)
    low = pair.amin(dim=0)
    # log(exp(high) + exp(low)) = high + log1p(exp(low - high)), low - high <= 0.
    return high + torch.log1p(torch.exp(low - high))


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if target.shape != logits.shape:
        raise ValueError(f"target shape {tuple(target.shape)} != {tuple(logits.shape)}")
    if pos_weight is not None and torch.broadcast_shapes(pos_weight.shape, logits.shape) != (
        logits.shape
    ):
        raise ValueError("pos_weight broadcasts logits to a larger shape")
    if not isinstance(reduction, str) or reduction not in {"mean", "sum", "none"}:
        raise ValueError(f"unknown reduction {reduction!r}")

    positive = target * _softplus(-logits)  # -y log sigmoid(x)
    if pos_weight is not None:
        positive = pos_weight * positive
    negative = (1 - target) * _softplus(logits)  # -(1 - y) log(1 - sigmoid(x))
    loss = positive + negative

    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss
