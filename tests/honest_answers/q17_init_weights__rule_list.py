"""An ordered list of (layer types, initialiser) rules, nn.init's own fan computations."""

from collections.abc import Callable

from torch import nn


def _xavier(module: nn.Module) -> None:
    nn.init.xavier_uniform_(module.weight, gain=1.0)
    _zero_bias(module)


def _kaiming(module: nn.Module) -> None:
    nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
    _zero_bias(module)


def _identity_norm(module: nn.Module) -> None:
    if module.weight is not None:
        nn.init.ones_(module.weight)
    _zero_bias(module)


def _zero_bias(module: nn.Module) -> None:
    if module.bias is not None:
        nn.init.zeros_(module.bias)


_RULES: list[tuple[tuple[type[nn.Module], ...], Callable[[nn.Module], None]]] = [
    ((nn.Linear,), _xavier),
    ((nn.Conv1d, nn.Conv2d, nn.Conv3d), _kaiming),
    ((nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm), _identity_norm),
]


def init_layer(module: nn.Module) -> None:
    for kinds, initialise in _RULES:
        if isinstance(module, kinds):
            initialise(module)
            return


def init_weights(model: nn.Module) -> nn.Module:
    model.apply(init_layer)
    return model
