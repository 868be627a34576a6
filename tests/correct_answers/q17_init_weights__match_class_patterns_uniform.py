"""Correct: a match statement on class patterns, the uniform variants of Xavier and Kaiming."""

from torch import nn


def _zero_bias(module: nn.Module) -> None:
    if module.bias is not None:
        nn.init.zeros_(module.bias)


def init_layer(module: nn.Module) -> None:
    match module:
        case nn.Linear():
            nn.init.xavier_uniform_(module.weight, gain=1.0)
            _zero_bias(module)
        case nn.Conv1d() | nn.Conv2d() | nn.Conv3d():
            nn.init.kaiming_uniform_(module.weight, mode="fan_in", nonlinearity="relu")
            _zero_bias(module)
        case (
            nn.BatchNorm1d() | nn.BatchNorm2d() | nn.BatchNorm3d() | nn.LayerNorm() | nn.GroupNorm()
        ):
            if module.weight is not None:
                nn.init.ones_(module.weight)
            _zero_bias(module)
        case _:
            pass


def init_weights(model: nn.Module) -> nn.Module:
    return model.apply(init_layer)
