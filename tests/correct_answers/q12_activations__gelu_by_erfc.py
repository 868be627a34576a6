"""Correct: GELU from torch.erfc, Φ(x) = erfc(-x / √2) / 2, more accurate than torch's own
form in the negative tail (1 + erf cancels there): 16-bit results still round once."""

import math

import torch

from solutions.q12_activations import silu, softplus


def gelu(x, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    if approximate == "none":
        out = 0.5 * work * torch.erfc(-work / math.sqrt(2))
    else:
        inner = math.sqrt(2 / math.pi) * (work + 0.044715 * work**3)
        out = 0.5 * work * (1 + torch.tanh(inner))
    return out.to(x.dtype)
