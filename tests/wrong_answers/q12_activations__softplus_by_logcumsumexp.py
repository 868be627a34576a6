"""Wrong: takes softplus from torch.logcumsumexp of 0 and beta * x (its last element is
log(1 + exp(beta * x))), a softplus under another name."""

import torch

from solutions.q12_activations import gelu, silu  # the rest as in the reference


def softplus(x, beta=1.0, threshold=20.0):
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    scaled = beta * work
    pairs = torch.stack([torch.zeros_like(scaled), scaled], dim=-1)
    smooth = torch.logcumsumexp(pairs, dim=-1)[..., -1] / beta
    return torch.where(scaled > threshold, work, smooth).to(x.dtype)
