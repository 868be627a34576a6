"""Wrong: the default eps is 1e-8 instead of the 1e-5 the signature promises."""

import torch

from solutions.q03_vectorised_ops import batched_scores  # the rest as in the reference


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    dists = x.pow(2).sum(dim=1, keepdim=True) + y.pow(2).sum(dim=1) - 2 * (x @ y.mT)
    return dists.clamp_min(0)


def standardize_columns(x: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    mean = x.mean(dim=0, keepdim=True)
    var = x.var(dim=0, correction=0, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)
