"""isinstance chains writing through .data with torch.nn.init.normal_ and a std computed from the
weight's shape (fan_in from weight[0].numel()); bias.data.zero_()."""

import math

from torch import nn

_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)


def init_layer(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        fan_out, fan_in = module.weight.shape
        nn.init.normal_(module.weight.data, 0.0, math.sqrt(2.0 / (fan_in + fan_out)))
    elif isinstance(module, _CONVS):
        nn.init.normal_(module.weight.data, 0.0, math.sqrt(2.0 / module.weight[0].numel()))
    elif isinstance(module, _NORMS):
        if module.weight is not None:
            module.weight.data.fill_(1.0)
    else:
        return
    if module.bias is not None:
        module.bias.data.zero_()


def init_weights(model: nn.Module) -> nn.Module:
    model.apply(init_layer)
    return model
