"""Wrong: accepts approximate in any case and None ("TANH", "None", None), which F.gelu
refuses."""

import math

import torch

from solutions.q12_activations import silu, softplus


def gelu(x, approximate="none"):
    if str(approximate).lower() not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    if str(approximate).lower() != "tanh":
        out = 0.5 * work * (1 + torch.erf(work / math.sqrt(2)))
    else:
        inner = math.sqrt(2 / math.pi) * (work + 0.044715 * work**3)
        out = 0.5 * work * (1 + torch.tanh(inner))
    return out.to(x.dtype)
