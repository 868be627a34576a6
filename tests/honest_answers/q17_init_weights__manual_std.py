"""Standard deviations computed from the weight's shape, drawn with Tensor.uniform_ and normal_."""

import math

import torch
from torch import nn

_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)


def _fill_bias(bias: torch.Tensor | None, value: float) -> None:
    if bias is not None:
        with torch.no_grad():
            bias.fill_(value)


def init_layer(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        fan_out, fan_in = module.weight.shape
        std = math.sqrt(2.0 / (fan_in + fan_out))
        with torch.no_grad():
            module.weight.normal_(0.0, std)
        _fill_bias(module.bias, 0.0)
        return
    if isinstance(module, _CONVS):
        # weight is [out, in / groups, *kernel]: fan-in is everything after dim 0
        fan_in = math.prod(module.weight.shape[1:])
        bound = math.sqrt(3.0) * math.sqrt(2.0 / fan_in)
        with torch.no_grad():
            module.weight.uniform_(-bound, bound)
        _fill_bias(module.bias, 0.0)
        return
    if isinstance(module, _NORMS):
        weight = getattr(module, "weight", None)
        if weight is not None:
            with torch.no_grad():
                weight.fill_(1.0)
        _fill_bias(getattr(module, "bias", None), 0.0)


def init_weights(model: nn.Module) -> nn.Module:
    return model.apply(init_layer)
