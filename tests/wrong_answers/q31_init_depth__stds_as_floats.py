"""Wrong: collects the stds as Python floats and builds a new tensor from them, which is
float32 whatever the dtype of x."""

import torch
from torch import nn

from solutions.q31_init_depth import deep_stack, relu_std_ratio  # the rest as in the reference


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    stds = []
    with torch.no_grad():  # a measurement: nothing here needs gradients
        for layer in stack:
            x = layer(x)
            if not isinstance(layer, nn.Linear):
                stds.append(x.std().item())
    return torch.tensor(stds, device=x.device)
