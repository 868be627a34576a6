"""functools.singledispatch on the layer type; weights by normal_ at a std from the fans."""

import math
from functools import singledispatch

import torch
from torch import nn


@singledispatch
def _init(module: nn.Module) -> None:
    """Any other module: left as it is."""


@_init.register
def _(module: nn.Linear) -> None:
    with torch.no_grad():
        module.weight.normal_(0.0, math.sqrt(2.0 / (module.in_features + module.out_features)))
        if module.bias is not None:
            module.bias.zero_()


@_init.register(nn.Conv1d)
@_init.register(nn.Conv2d)
@_init.register(nn.Conv3d)
def _(module: nn.Module) -> None:
    weight = module.weight
    fan_in = weight[0].numel()  # in_channels / groups * kernel elements
    with torch.no_grad():
        weight.normal_(0.0, math.sqrt(2.0 / fan_in))
        if module.bias is not None:
            module.bias.zero_()


@_init.register(nn.BatchNorm1d)
@_init.register(nn.BatchNorm2d)
@_init.register(nn.BatchNorm3d)
@_init.register(nn.LayerNorm)
@_init.register(nn.GroupNorm)
def _(module: nn.Module) -> None:
    with torch.no_grad():
        if module.weight is not None:
            module.weight.fill_(1.0)
        if module.bias is not None:
            module.bias.zero_()


def init_layer(module: nn.Module) -> None:
    _init(module)


def init_weights(model: nn.Module) -> nn.Module:
    return model.apply(init_layer)
