"""A frozen dataclass of scheme settings whose __call__ is the apply-function: xavier_normal_ and
kaiming_normal_ from nn.init, ones_/zeros_ for the norms; init_weights returns apply's result."""

from dataclasses import dataclass
from typing import Literal

from torch import nn

_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)


@dataclass(frozen=True)
class _Initialiser:
    xavier_gain: float = 1.0
    kaiming_nonlinearity: Literal["relu", "leaky_relu"] = "relu"

    def __call__(self, module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.xavier_normal_(module.weight, gain=self.xavier_gain)
            self._zero_bias(module)
        elif isinstance(module, _CONVS):
            nn.init.kaiming_normal_(
                module.weight, mode="fan_in", nonlinearity=self.kaiming_nonlinearity
            )
            self._zero_bias(module)
        elif isinstance(module, _NORMS):
            if getattr(module, "weight", None) is not None:
                nn.init.ones_(module.weight)
            self._zero_bias(module)

    @staticmethod
    def _zero_bias(module: nn.Module) -> None:
        bias = getattr(module, "bias", None)
        if bias is not None:
            nn.init.zeros_(bias)


_DEFAULT = _Initialiser()


def init_layer(module: nn.Module) -> None:
    _DEFAULT(module)


def init_weights(model: nn.Module) -> nn.Module:
    # Module.apply returns the module it was called on.
    return model.apply(init_layer)
