"""Correct: normal draws with the std computed from the weight's shape, under no_grad."""

import math

import torch
from torch import nn

_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)


def _std(module: nn.Module) -> float | None:
    weight = module.weight
    fan_in = weight[0].numel()
    if isinstance(module, nn.Linear):
        return math.sqrt(2.0 / (fan_in + weight.shape[0]))
    if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        return math.sqrt(2.0 / fan_in)
    return None


@torch.no_grad()
def init_layer(module: nn.Module) -> None:
    if isinstance(module, _NORMS):
        if getattr(module, "weight", None) is not None:
            module.weight.fill_(1.0)
        if getattr(module, "bias", None) is not None:
            module.bias.zero_()
        return
    if not isinstance(module, (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        return
    module.weight.normal_(0.0, _std(module))
    if module.bias is not None:
        module.bias.zero_()


def init_weights(model: nn.Module) -> nn.Module:
    model.apply(init_layer)
    return model
