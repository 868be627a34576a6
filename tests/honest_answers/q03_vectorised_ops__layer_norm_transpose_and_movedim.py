"""In-dtype addmm with clamp_min_, layer_norm over the transposed columns, mT matmul,
unflatten/movedim/flatten patches, cat of unsqueezed rows."""

import torch
import torch.nn.functional as F


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    sq = x.pow(2).sum(-1, keepdim=True) + y.pow(2).sum(-1).unsqueeze(0)
    return torch.addmm(sq, x, y.mT, alpha=-2).clamp_min_(0)


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    # layer norm over each row of x^T is exactly a per-column standardisation
    return F.layer_norm(x.mT, (x.shape[0],), eps=eps).mT


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return torch.matmul(q, k.mT)


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    grid = images.unflatten(2, (-1, patch)).unflatten(4, (-1, patch))  # N C gh p gw p
    grid = grid.movedim((2, 4), (1, 2))  # N gh gw C p p
    return grid.flatten(3).flatten(1, 2)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.cat((a.unsqueeze(1), b.unsqueeze(1)), dim=1).flatten(0, 1)
