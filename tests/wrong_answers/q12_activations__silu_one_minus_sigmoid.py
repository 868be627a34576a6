"""Wrong: computes SiLU as x - x * sigmoid(-x), which cancels for very negative x: silu(-20) is
0 instead of about -4e-8."""

import torch

from solutions.q12_activations import gelu, softplus


def silu(x):
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return (work - work * torch.sigmoid(-work)).to(x.dtype)
