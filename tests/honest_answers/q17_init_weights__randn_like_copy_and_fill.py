"""Values drawn with torch.randn_like, scaled and copied in under torch.no_grad; fill_ for the
constants; the conv fan-in from in_channels // groups times the kernel_size product."""

import math

import torch
from torch import nn


def _copy_normal(param: torch.Tensor, std: float) -> None:
    with torch.no_grad():
        param.copy_(torch.randn_like(param) * std)


def _fill(param: torch.Tensor | None, value: float) -> None:
    if param is not None:
        with torch.no_grad():
            param.fill_(value)


def init_layer(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        _copy_normal(module.weight, math.sqrt(2.0 / (module.in_features + module.out_features)))
        _fill(module.bias, 0.0)
    elif isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        fan_in = module.in_channels // module.groups * math.prod(module.kernel_size)
        _copy_normal(module.weight, math.sqrt(2.0 / fan_in))
        _fill(module.bias, 0.0)
    elif isinstance(
        module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)
    ):
        _fill(module.weight, 1.0)
        _fill(module.bias, 0.0)


def init_weights(model: nn.Module) -> nn.Module:
    model.apply(init_layer)
    return model
