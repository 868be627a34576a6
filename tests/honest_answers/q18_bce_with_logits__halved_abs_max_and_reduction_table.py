"""max(z, 0) written as h + |h| with h = z / 2 (slope 1/2 at the tie, no overflow), reductions
from a dict of callables."""

import torch

_REDUCTIONS = {
    "none": lambda loss: loss,
    "sum": lambda loss: loss.sum(),
    "mean": lambda loss: loss.sum() / loss.numel(),
}


def _softplus(z: torch.Tensor) -> torch.Tensor:
    # h + |h| with h = z / 2 is max(z, 0): halving first keeps it finite near the dtype's
    # largest value (z + |z| would overflow), and autograd's sign(0) = 0 gives it the smooth
    # slope 1/2 at 0. Its slope 1 + sign(h) is exactly 0 or 2 times 1/2, so the tiny slope of
    # the tail is not lost to rounding when the two are summed.
    half = z * 0.5
    return (half + half.abs()) + torch.log1p(torch.exp(-z.abs()))


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    if tuple(target.shape) != tuple(logits.shape):
        raise ValueError(f"target shape {tuple(target.shape)} differs from {tuple(logits.shape)}")
    positive = _softplus(-logits)
    if pos_weight is not None:
        if torch.broadcast_shapes(pos_weight.shape, logits.shape) != logits.shape:
            raise ValueError("pos_weight broadcasts logits to a larger shape")
        positive = pos_weight * positive
    loss = target * positive + (1 - target) * _softplus(logits)
    return _REDUCTIONS[reduction](loss)
