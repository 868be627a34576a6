"""Wrong: gives each weight new float32 data, so a float64 layer's weights turn float32."""

import torch
from torch import nn

from solutions.q17_init_weights import init_weights  # the rest as in the reference

__all__ = ["init_layer", "init_weights"]

_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)


def init_layer(module):
    if isinstance(module, nn.Linear):
        fresh = torch.empty(module.weight.shape, device=module.weight.device)
        module.weight.data = nn.init.xavier_uniform_(fresh)
    elif isinstance(module, _CONVS):
        fresh = torch.empty(module.weight.shape, device=module.weight.device)
        module.weight.data = nn.init.kaiming_normal_(fresh, mode="fan_in", nonlinearity="relu")
    elif isinstance(module, _NORMS):
        if module.weight is not None:
            nn.init.ones_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
        return
    else:
        return
    if module.bias is not None:
        nn.init.zeros_(module.bias)
