"""Wrong: widens only float16 to float32 for softplus (its exp overflows), computing bfloat16
natively, rounded at every step."""

import torch

from solutions.q12_activations import gelu, silu


def softplus(x, beta=1.0, threshold=20.0):
    if not beta > 0:
        raise ValueError(f"beta must be positive, got {beta}")
    work = x.float() if x.dtype == torch.float16 else x
    scaled = beta * work
    linear = scaled > threshold
    safe = torch.where(linear, torch.zeros_like(scaled), scaled)
    return torch.where(linear, work, torch.log1p(torch.exp(safe)) / beta).to(x.dtype)
