"""init_layer draws standard normal noise with Tensor.normal_ into a scratch tensor
and copy_s it, scaled, into each weight under torch.no_grad; fills with Tensor.fill_."""

import math

import torch
from torch import nn

_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)


@torch.no_grad()
def _scaled_normal(weight: torch.Tensor, std: float) -> None:
    noise = torch.empty_like(weight).normal_()  # from the default generator of its device
    weight.copy_(noise.mul_(std))


@torch.no_grad()
def init_layer(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        std = math.sqrt(2.0 / (module.in_features + module.out_features))
        _scaled_normal(module.weight, std)
    elif isinstance(module, _CONVS):
        fan_in = module.weight[0].numel()
        _scaled_normal(module.weight, math.sqrt(2.0 / fan_in))
    elif isinstance(module, _NORMS):
        if module.weight is not None:
            module.weight.fill_(1.0)
    else:
        return
    if module.bias is not None:
        module.bias.fill_(0.0)


def init_weights(model: nn.Module) -> nn.Module:
    model.apply(init_layer)
    return model
