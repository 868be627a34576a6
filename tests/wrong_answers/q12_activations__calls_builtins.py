"""Wrong: hands the work to torch.nn.functional, which the kata forbids."""

import torch.nn.functional as F


def gelu(x, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError("approximate must be 'none' or 'tanh'")
    return F.gelu(x, approximate=approximate)


def silu(x):
    return F.silu(x)


def softplus(x, beta=1.0, threshold=20.0):
    if beta <= 0:
        raise ValueError("beta must be positive")
    return F.softplus(x, beta=beta, threshold=threshold)
