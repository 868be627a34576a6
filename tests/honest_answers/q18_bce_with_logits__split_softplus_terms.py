"""Each of the two terms is its own stable softplus, built by one helper from maximum,
log1p and exp of minus the absolute value; validation through torch.broadcast_shapes and
a dict of reductions."""

import torch

_REDUCE = {
    "none": lambda t: t,
    "sum": torch.sum,
    "mean": torch.mean,
}


def _softplus(z: torch.Tensor) -> torch.Tensor:
    # log(1 + e^z) = max(z, 0) + log(1 + e^-|z|): only e^(non-positive) is ever taken.
    return torch.maximum(z, torch.zeros_like(z)) + torch.log1p(torch.exp(-z.abs()))


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if not isinstance(reduction, str) or reduction not in _REDUCE:
        raise ValueError(f"unknown reduction {reduction!r}")
    if target.shape != logits.shape:
        raise ValueError(f"target {tuple(target.shape)} != logits {tuple(logits.shape)}")
    if pos_weight is not None:
        joint = torch.broadcast_shapes(pos_weight.shape, logits.shape)
        if joint != logits.shape:
            raise ValueError(f"pos_weight of shape {tuple(pos_weight.shape)} widens the logits")

    neg_log_p = _softplus(-logits)  # -log sigmoid(x)
    neg_log_q = _softplus(logits)  # -log(1 - sigmoid(x))
    positive = target * neg_log_p
    if pos_weight is not None:
        positive = pos_weight * positive
    loss = positive + (1 - target) * neg_log_q
    return _REDUCE[reduction](loss)
