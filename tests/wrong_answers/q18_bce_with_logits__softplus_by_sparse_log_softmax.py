"""Wrong: takes softplus from torch.sparse.log_softmax over the pairs (0, x), a log-softmax
under another name."""

import warnings

import torch

from solutions.q18_bce_with_logits import _REDUCTIONS, _broadcasts_to


def bce_with_logits(
    logits: torch.Tensor,
    target: torch.Tensor,
    *,
    pos_weight: torch.Tensor | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    if target.shape != logits.shape:
        raise ValueError(
            f"target must have logits' shape {tuple(logits.shape)}, got {tuple(target.shape)}"
        )
    if pos_weight is not None and not _broadcasts_to(pos_weight.shape, logits.shape):
        raise ValueError("pos_weight would enlarge the loss")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")

    # softplus(z) = max(z, 0) + log1p(exp(-|z|)): exp only ever sees -|z| <= 0, so nothing
    # overflows, and log1p keeps the precision of the tiny exp(-|z|) for large |z|.
    # Both softplus(x) and softplus(-x) share the log1p term. torch.maximum splits the
    # gradient of a tie evenly, so at x = 0 autograd gives softplus' true slope 1/2
    # (clamp(min=0) would give 1 there, relu 0).
    # log_softmax over the two logits (0, x) is (-softplus(x), -softplus(-x)).
    pairs = torch.stack([torch.zeros_like(logits), logits], dim=-1).reshape(-1, 2)
    index = torch.ones_like(pairs, dtype=torch.bool).nonzero().t()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = torch.sparse_coo_tensor(index, pairs.reshape(-1), pairs.shape)
    log_pairs = torch.sparse.log_softmax(full, 1).to_dense().reshape(*logits.shape, 2)
    minus_log_not_p, minus_log_p = -log_pairs[..., 0], -log_pairs[..., 1]

    positive = target * minus_log_p
    if pos_weight is not None:
        positive = pos_weight * positive  # weights the positive term only
    loss = positive + (1 - target) * minus_log_not_p

    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()
