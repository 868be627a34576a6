"""Correct: torch.var_mean for the columns, addmm in a widened dtype for the distances,
matmul against k.transpose for the scores."""

import torch


def _wide(dtype: torch.dtype) -> torch.dtype:
    # Half precisions compute in float32; float32 and float64 stay as they are.
    return torch.promote_types(dtype, torch.float32)


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    wide = _wide(x.dtype)
    xw, yw = x.to(wide), y.to(wide)
    x_sq = (xw * xw).sum(dim=1, keepdim=True)  # [N, 1]
    y_sq = (yw * yw).sum(dim=1).unsqueeze(0)  # [1, M]
    dists = torch.addmm(x_sq + y_sq, xw, yw.t(), beta=1.0, alpha=-2.0)
    return dists.clamp(min=0.0).to(x.dtype)


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    xw = x.to(_wide(x.dtype))
    var, mean = torch.var_mean(xw, dim=0, correction=0, keepdim=True)
    return ((xw - mean) / torch.sqrt(var + eps)).to(x.dtype)


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return torch.matmul(q, k.transpose(-2, -1))


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    n, c, h, w = images.shape
    split = images.reshape(n, c, h // patch, patch, w // patch, patch)
    return torch.einsum("nciyjx->nijcyx", split).reshape(n, -1, c * patch**2)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (
        torch.stack([a, b], dim=1).view(2 * len(a), *a.shape[1:])
        if a.is_contiguous() and b.is_contiguous()
        else (torch.stack([a, b], dim=1).reshape(2 * len(a), *a.shape[1:]))
    )
