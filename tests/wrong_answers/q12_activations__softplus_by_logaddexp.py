"""Wrong: takes softplus from torch.logaddexp(x, 0), softplus itself under another name."""

import torch

from solutions.q12_activations import gelu, silu


def softplus(x, beta=1.0, threshold=20.0):
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    scaled = beta * work
    linear = scaled > threshold
    safe = torch.where(linear, torch.zeros_like(scaled), scaled)
    smooth = torch.logaddexp(safe, torch.zeros_like(safe)) / beta
    return torch.where(linear, work, smooth).to(x.dtype)
