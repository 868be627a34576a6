"""Wrong: softplus sends float16 and bfloat16 through float32 before it checks beta, so a
non-positive beta is accepted for half-precision inputs."""

import torch

from solutions.q12_activations import gelu, silu


def _softplus(x, beta, threshold):
    scaled = beta * x
    linear = scaled > threshold
    safe = torch.where(linear, torch.zeros_like(scaled), scaled)
    return torch.where(linear, x, torch.log1p(torch.exp(safe)) / beta)


def softplus(x, beta=1.0, threshold=20.0):
    if x.dtype in (torch.float16, torch.bfloat16):
        return _softplus(x.float(), beta, threshold).to(x.dtype)
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    return _softplus(x, beta, threshold)
