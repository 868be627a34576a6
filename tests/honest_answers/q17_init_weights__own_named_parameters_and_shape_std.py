"""Own parameters by name (named_parameters(recurse=False)), normal draws with the std read off
the weight's shape (sum of a Linear's dims, numel of one output filter for a conv), isinstance on
tuples of classes."""

import math

from torch import nn

_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)


def _weight_std(module: nn.Module, weight: nn.Parameter) -> float:
    if isinstance(module, nn.Linear):
        # Xavier with gain 1: 2 / (fan_in + fan_out), and a Linear's weight is [out, in].
        return math.sqrt(2.0 / sum(weight.shape))
    # Kaiming for ReLU, fan-in: one output filter holds (in_channels / groups) x kernel weights.
    return math.sqrt(2.0 / weight[0].numel())


def init_layer(module: nn.Module) -> None:
    if isinstance(module, (nn.Linear, *_CONVS)):
        for name, param in module.named_parameters(recurse=False):
            if name == "weight":
                nn.init.normal_(param, mean=0.0, std=_weight_std(module, param))
            elif name == "bias":
                nn.init.zeros_(param)
    elif isinstance(module, _NORMS):
        for name, param in module.named_parameters(recurse=False):
            if name == "weight":
                nn.init.ones_(param)
            elif name == "bias":
                nn.init.zeros_(param)


def init_weights(model: nn.Module) -> nn.Module:
    return model.apply(init_layer)
