"""softplus from torch.where branches that agree at 0 (slope 1/2), and a dict of reductions."""

from collections.abc import Callable

import torch

_REDUCTIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "none": lambda losses: losses,
    "sum": torch.sum,
    "mean": torch.mean,
}


def _softplus(z: torch.Tensor) -> torch.Tensor:
    # max(z, 0) + log1p(exp(-|z|)) with both pieces taking the z >= 0 branch at z = 0,
    # so their slopes there are 1 and -1/2: the smooth function's 1/2.
    nonneg = z >= 0
    positive_part = torch.where(nonneg, z, torch.zeros_like(z))
    magnitude = torch.where(nonneg, z, -z)
    return positive_part + torch.log1p(torch.exp(-magnitude))


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    """pos_weight * y * softplus(-x) + (1 - y) * softplus(x), then reduced."""
    reduce = _REDUCTIONS.get(reduction)
    if reduce is None:
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if target.shape != logits.shape:
        raise ValueError(
            f"target shape {tuple(target.shape)} != logits shape {tuple(logits.shape)}"
        )
    positive_cost = target * _softplus(-logits)
    if pos_weight is not None:
        if torch.broadcast_shapes(pos_weight.shape, logits.shape) != logits.shape:
            raise ValueError(f"pos_weight {tuple(pos_weight.shape)} broadcasts beyond the logits")
        positive_cost = pos_weight * positive_cost
    return reduce(positive_cost + (1 - target) * _softplus(logits))
