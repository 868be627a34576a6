"""functools.singledispatch on the layer's class (which follows the MRO, so subclasses count),
uniform draws with bound sqrt(3) * std written out under torch.no_grad."""

import functools
import math

import torch
from torch import nn


@functools.singledispatch
def init_layer(module: nn.Module) -> None:
    """Any other module: its parameters are left alone."""


def _uniform_with_std(weight: torch.Tensor, std: float) -> None:
    bound = math.sqrt(3.0) * std  # U(-b, b) has std b / sqrt(3)
    with torch.no_grad():
        weight.uniform_(-bound, bound)


def _zero(bias: torch.Tensor | None) -> None:
    if bias is not None:
        with torch.no_grad():
            bias.zero_()


@init_layer.register
def _(module: nn.Linear) -> None:
    _uniform_with_std(module.weight, math.sqrt(2.0 / (module.in_features + module.out_features)))
    _zero(module.bias)


@init_layer.register(nn.Conv1d)
@init_layer.register(nn.Conv2d)
@init_layer.register(nn.Conv3d)
def _(module: nn.Module) -> None:
    weight = module.weight
    assert isinstance(weight, torch.Tensor)
    fan_in = weight[0].numel()  # (in_channels / groups) * kernel elements
    _uniform_with_std(weight, math.sqrt(2.0 / fan_in))
    bias = module.bias
    _zero(bias if isinstance(bias, torch.Tensor) else None)


@init_layer.register(nn.BatchNorm1d)
@init_layer.register(nn.BatchNorm2d)
@init_layer.register(nn.BatchNorm3d)
@init_layer.register(nn.LayerNorm)
@init_layer.register(nn.GroupNorm)
def _(module: nn.Module) -> None:
    weight, bias = getattr(module, "weight", None), getattr(module, "bias", None)
    with torch.no_grad():
        if isinstance(weight, torch.Tensor):
            weight.fill_(1.0)
        if isinstance(bias, torch.Tensor):
            bias.fill_(0.0)


def init_weights(model: nn.Module) -> nn.Module:
    return model.apply(init_layer)
