"""Wrong: gives each weight new float32 data, so a float64 layer's weights turn float32."""

import torch
from torch import nn

from solutions.q17_init_weights import (  # the rest as in the reference
    _CONVS,
    _NORMS,
    init_weights,
)


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
