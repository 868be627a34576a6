"""Wrong: softplus as log(1 + exp(beta * x)) / beta, straight from the formula: exp overflows
to inf for large x, 1 + exp(...) rounds tiny results to 0, and the threshold is ignored."""

import torch

from solutions.q12_activations import gelu, silu  # the rest as in the reference


def softplus(x, beta=1.0, threshold=20.0):
    if beta <= 0:
        raise ValueError("beta must be positive")
    return torch.log(1 + torch.exp(beta * x)) / beta
