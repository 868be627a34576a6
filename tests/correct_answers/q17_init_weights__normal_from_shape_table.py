"""Correct: the standard deviations computed from the weight's shape, drawn with normal_."""

import math

import torch
from torch import nn

_RULES: list[tuple[tuple[type, ...], str]] = [
    ((nn.Linear,), "xavier"),
    ((nn.Conv1d, nn.Conv2d, nn.Conv3d), "kaiming"),
    ((nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm), "identity"),
]


def _std(weight: torch.Tensor, scheme: str) -> float:
    fan_in = weight[0].numel()  # in_features, or in_channels / groups x kernel elements
    if scheme == "xavier":
        return math.sqrt(2.0 / (fan_in + weight.shape[0]))
    return math.sqrt(2.0 / fan_in)


def init_layer(module: nn.Module) -> None:
    scheme = next((s for types, s in _RULES if isinstance(module, types)), None)
    if scheme is None:
        return
    weight = module.get_parameter("weight") if module.weight is not None else None
    bias = module.bias if isinstance(getattr(module, "bias", None), torch.Tensor) else None
    with torch.no_grad():
        if weight is not None:
            if scheme == "identity":
                weight.fill_(1.0)
            else:
                weight.normal_(mean=0.0, std=_std(weight, scheme))
        if bias is not None:
            bias.zero_()


def init_weights(model: nn.Module) -> nn.Module:
    model.apply(init_layer)
    return model
