"""init_layer looks the module's class up along its MRO in a table of schemes
(uniform draws with bound sqrt(3) * std via nn.init.uniform_, nn.init.constant_ for the
rest); init_weights returns what model.apply returns."""

import math
from collections.abc import Callable

from torch import nn


def _xavier_uniform(module: nn.Module) -> None:
    fan_out, fan_in = module.weight.shape
    std = math.sqrt(2.0 / (fan_in + fan_out))
    bound = math.sqrt(3.0) * std  # U(-b, b) has std b / sqrt(3)
    nn.init.uniform_(module.weight, -bound, bound)
    if module.bias is not None:
        nn.init.constant_(module.bias, 0.0)


def _kaiming_uniform(module: nn.Module) -> None:
    fan_in = math.prod(module.weight.shape[1:])  # in_channels / groups x kernel elements
    bound = math.sqrt(3.0) * math.sqrt(2.0 / fan_in)
    nn.init.uniform_(module.weight, -bound, bound)
    if module.bias is not None:
        nn.init.constant_(module.bias, 0.0)


def _identity_affine(module: nn.Module) -> None:
    if getattr(module, "weight", None) is not None:
        nn.init.constant_(module.weight, 1.0)
    if getattr(module, "bias", None) is not None:
        nn.init.constant_(module.bias, 0.0)


_SCHEMES: dict[type, Callable[[nn.Module], None]] = {
    nn.Linear: _xavier_uniform,
    nn.Conv1d: _kaiming_uniform,
    nn.Conv2d: _kaiming_uniform,
    nn.Conv3d: _kaiming_uniform,
    nn.BatchNorm1d: _identity_affine,
    nn.BatchNorm2d: _identity_affine,
    nn.BatchNorm3d: _identity_affine,
    nn.LayerNorm: _identity_affine,
    nn.GroupNorm: _identity_affine,
}


def init_layer(module: nn.Module) -> None:
    # The first class of the MRO that has a scheme: a subclass counts as what it extends,
    # and private bases (_ConvNd, _BatchNorm, ...) are in no table entry.
    for cls in type(module).__mro__:
        scheme = _SCHEMES.get(cls)
        if scheme is not None:
            scheme(module)
            return


def init_weights(model: nn.Module) -> nn.Module:
    return model.apply(init_layer)  # apply returns the module itself
