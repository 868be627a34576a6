"""A match statement with class patterns (isinstance by another name) over torch.nn.init's
normal Xavier and uniform Kaiming; the model returned straight from model.apply."""

from torch import nn
from torch.nn import init


def init_layer(module: nn.Module) -> None:
    match module:
        case nn.Linear():
            init.xavier_normal_(module.weight, gain=1.0)
            if module.bias is not None:
                init.zeros_(module.bias)
        case nn.Conv1d() | nn.Conv2d() | nn.Conv3d():
            init.kaiming_uniform_(module.weight, mode="fan_in", nonlinearity="relu")
            if module.bias is not None:
                init.zeros_(module.bias)
        case (
            nn.BatchNorm1d() | nn.BatchNorm2d() | nn.BatchNorm3d() | nn.LayerNorm() | nn.GroupNorm()
        ):
            if module.weight is not None:
                init.ones_(module.weight)
            if module.bias is not None:
                init.zeros_(module.bias)
        case _:
            pass


def init_weights(model: nn.Module) -> nn.Module:
    return model.apply(init_layer)
