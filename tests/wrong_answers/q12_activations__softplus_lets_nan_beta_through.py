"""Wrong: checks beta <= 0, which a NaN beta passes: softplus then returns NaN instead of
refusing it."""

import torch

from solutions.q12_activations import gelu, silu


def softplus(x, beta=1.0, threshold=20.0):
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    scaled = beta * work
    linear = scaled > threshold
    safe = torch.where(linear, torch.zeros_like(scaled), scaled)
    return torch.where(linear, work, torch.log1p(torch.exp(safe)) / beta).to(x.dtype)
