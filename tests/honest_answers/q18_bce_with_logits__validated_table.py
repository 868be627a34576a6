"""Reductions from a dict of callables, the stable softplus written once as a local lambda."""

import torch

_REDUCTIONS = {
    "none": lambda loss: loss,
    "sum": torch.sum,
    "mean": torch.mean,
}


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if target.shape != logits.shape:
        raise ValueError(f"target {tuple(target.shape)} vs logits {tuple(logits.shape)}")
    if (
        pos_weight is not None
        and torch.broadcast_shapes(pos_weight.shape, logits.shape) != logits.shape
    ):
        raise ValueError(f"pos_weight {tuple(pos_weight.shape)} would enlarge the loss")
    try:
        reduce = _REDUCTIONS[reduction]
    except KeyError:
        raise ValueError(f"unknown reduction {reduction!r}") from None
    zero = torch.zeros((), dtype=logits.dtype, device=logits.device)

    def softplus(z: torch.Tensor) -> torch.Tensor:
        return torch.maximum(z, zero) + torch.log1p(torch.exp(-z.abs()))

    positive = target * softplus(-logits)
    if pos_weight is not None:
        positive = positive * pos_weight
    loss = positive + (1 - target) * softplus(logits)
    return reduce(loss)
