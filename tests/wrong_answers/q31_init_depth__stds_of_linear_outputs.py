"""Wrong: records the std after every Linear layer (the pre-activations) instead of after
every activation module."""

import torch
from torch import nn

from solutions.q31_init_depth import deep_stack, relu_std_ratio  # the rest as in the reference


def activation_stds(stack, x):
    stds = []
    with torch.no_grad():
        for layer in stack:
            x = layer(x)
            if isinstance(layer, nn.Linear):
                stds.append(x.std())
    return torch.stack(stds)
