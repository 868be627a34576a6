"""Wrong: always computes the exact (erf) GELU, even when approximate="tanh" is asked for."""

import math

import torch

from solutions.q12_activations import silu, softplus  # the rest as in the reference


def gelu(x, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError("approximate must be 'none' or 'tanh'")
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
