"""A dispatch table of (types, initialiser) pairs walked with next(), getattr with defaults."""

from collections.abc import Callable

from torch import nn


def _linear(module: nn.Module) -> None:
    nn.init.xavier_uniform_(module.weight)
    _zero_bias(module)


def _conv(module: nn.Module) -> None:
    nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
    _zero_bias(module)


def _norm(module: nn.Module) -> None:
    if getattr(module, "weight", None) is not None:
        nn.init.ones_(module.weight)
    _zero_bias(module)


def _zero_bias(module: nn.Module) -> None:
    if getattr(module, "bias", None) is not None:
        nn.init.zeros_(module.bias)


_TABLE: list[tuple[tuple[type, ...], Callable[[nn.Module], None]]] = [
    ((nn.Linear,), _linear),
    ((nn.Conv1d, nn.Conv2d, nn.Conv3d), _conv),
    ((nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm), _norm),
]


def init_layer(module: nn.Module) -> None:
    action = next((fn for kinds, fn in _TABLE if isinstance(module, kinds)), None)
    if action is not None:
        action(module)


def init_weights(model: nn.Module) -> nn.Module:
    model.apply(init_layer)
    return model
