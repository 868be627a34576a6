"""Wrong: takes softplus from F.soft_margin_loss at the label -1, softplus under another name."""

import torch
import torch.nn.functional as F

from solutions.q12_activations import gelu, silu


def softplus(x, beta=1.0, threshold=20.0):
    if not beta > 0:
        raise ValueError(f"beta must be positive, got {beta}")
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    scaled = beta * work
    linear = scaled > threshold
    safe = torch.where(linear, torch.zeros_like(scaled), scaled)
    soft = F.soft_margin_loss(safe, -torch.ones_like(safe), reduction="none")
    return torch.where(linear, work, soft / beta).to(x.dtype)
