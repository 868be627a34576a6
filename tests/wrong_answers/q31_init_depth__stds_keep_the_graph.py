"""Wrong: runs the stack with autograd on, so the returned stds carry a graph (and the
whole forward pass is kept in memory) when x requires grad."""

import torch
from torch import nn

from solutions.q31_init_depth import deep_stack, relu_std_ratio  # the rest as in the reference


def activation_stds(stack, x):
    stds = []
    for layer in stack:
        x = layer(x)
        if not isinstance(layer, nn.Linear):
            stds.append(x.std())
    return torch.stack(stds)
