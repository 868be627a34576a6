"""Wrong: checks beta only on the float32 path, so float64 input accepts a non-positive beta."""

import torch

from solutions.q12_activations import gelu, silu


def softplus(x, beta=1.0, threshold=20.0):
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    if work.dtype == torch.float32 and not beta > 0:
        raise ValueError(f"beta must be positive, got {beta}")
    scaled = beta * work
    linear = scaled > threshold
    safe = torch.where(linear, torch.zeros_like(scaled), scaled)
    return torch.where(linear, work, torch.log1p(torch.exp(safe)) / beta).to(x.dtype)
