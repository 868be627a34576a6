"""In-place tensor methods under a torch.no_grad decorator: uniform_ with the bound sqrt(3) * std,
fans from the weight's shape (math.prod of the dims after the first), the module's own
parameters looked up by name with named_parameters(recurse=False)."""

import math

import torch
from torch import nn


@torch.no_grad()
def init_layer(module: nn.Module) -> None:
    own = dict(module.named_parameters(recurse=False))
    weight, bias = own.get("weight"), own.get("bias")
    if isinstance(module, nn.Linear | nn.Conv1d | nn.Conv2d | nn.Conv3d):
        assert weight is not None
        # in_features, or in_channels / groups x kernel elements
        fan_in = math.prod(weight.shape[1:])
        if weight.numel() > 0:  # an empty weight has nothing to draw (and no fan to divide by)
            if isinstance(module, nn.Linear):
                std = math.sqrt(2.0 / (fan_in + weight.shape[0]))
            else:
                std = math.sqrt(2.0 / fan_in)
            bound = math.sqrt(3.0) * std  # U(-a, a) has std a / sqrt(3)
            weight.uniform_(-bound, bound)
        if bias is not None:
            bias.zero_()
    elif isinstance(
        module, nn.BatchNorm1d | nn.BatchNorm2d | nn.BatchNorm3d | nn.LayerNorm | nn.GroupNorm
    ):
        if weight is not None:
            weight.fill_(1.0)
        if bias is not None:
            bias.zero_()


def init_weights(model: nn.Module) -> nn.Module:
    model.apply(init_layer)
    return model
