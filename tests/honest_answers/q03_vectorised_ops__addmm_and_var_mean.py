"""torch.addmm folds the norms and the product into one call, var_mean in a dtype named from its
bit width, matmul with mT."""

import torch


def _wide(dtype: torch.dtype) -> torch.dtype:
    """float16 and bfloat16 are reduced in float32; float32 and float64 as they are."""
    bits = max(32, torch.finfo(dtype).bits)
    return getattr(torch, f"float{bits}")


def pairwise_sq_dists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    wide = _wide(x.dtype)
    xw, yw = x.to(wide), y.to(wide)
    x_sq = xw.square().sum(dim=1, keepdim=True)  # [N, 1]
    y_sq = yw.square().sum(dim=1).unsqueeze(0)  # [1, M]
    dists = torch.addmm(x_sq + y_sq, xw, yw.T, beta=1, alpha=-2)
    return dists.clamp_min(0).to(x.dtype)


def standardize_columns(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    xw = x.to(_wide(x.dtype))
    var, mean = torch.var_mean(xw, dim=0, correction=0, keepdim=True)
    return ((xw - mean) * torch.rsqrt(var + eps)).to(x.dtype)


def batched_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return torch.matmul(q, k.mT)


def to_patches(images: torch.Tensor, patch: int) -> torch.Tensor:
    # Split H and W into (blocks, patch) each, bring the block dims before the channels.
    blocks = images.unflatten(2, (-1, patch)).unflatten(4, (-1, patch))  # [N, C, h, p, w, p]
    return blocks.permute(0, 2, 4, 1, 3, 5).flatten(3).flatten(1, 2)


def interleave_rows(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    pairs = torch.cat((a.unsqueeze(1), b.unsqueeze(1)), dim=1)  # [N, 2, ...]
    return pairs.flatten(0, 1)
