"""Wrong: computes GELU in float16 and bfloat16 themselves: float16's x**3 overflows above
about 40 (a nan gradient for tanh's form), and bfloat16 loses bits at every step."""

import math

import torch

from solutions.q12_activations import silu, softplus  # the rest as in the reference


def gelu(x, approximate="none"):
    if approximate == "none":
        return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
        return 0.5 * x * (1 + torch.tanh(inner))
    raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
