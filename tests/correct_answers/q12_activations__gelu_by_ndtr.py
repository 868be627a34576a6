"""Correct: GELU from torch.special.ndtr, which is Φ itself (a primitive, as torch.erf is)."""

import math

import torch

from solutions.q12_activations import silu, softplus


def gelu(x, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    if approximate == "none":
        out = work * torch.special.ndtr(work)
    else:
        inner = math.sqrt(2 / math.pi) * (work + 0.044715 * work**3)
        out = 0.5 * work * (1 + torch.tanh(inner))
    return out.to(x.dtype)
