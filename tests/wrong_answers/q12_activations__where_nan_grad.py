"""Wrong: switches to x above the threshold with torch.where but still feeds the large
values to exp; the forward is right, but the discarded branch's gradient is 0 * inf = nan."""

import torch

from solutions.q12_activations import gelu, silu  # the rest as in the reference


def softplus(x, beta=1.0, threshold=20.0):
    if beta <= 0:
        raise ValueError("beta must be positive")
    return torch.where(beta * x > threshold, x, torch.log1p(torch.exp(beta * x)) / beta)
