"""Wrong: keeps the std only after nn.ReLU and nn.Tanh, so other activation modules (GELU,
LeakyReLU, Sigmoid) are missing from the result."""

import torch
from torch import nn

from solutions.q31_init_depth import deep_stack, relu_std_ratio  # the rest as in the reference


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    stds = []
    with torch.no_grad():  # a measurement: nothing here needs gradients
        for layer in stack:
            x = layer(x)
            if isinstance(layer, nn.ReLU | nn.Tanh):
                stds.append(x.std())
    return torch.stack(stds)
