"""Wrong: skips normalisation layers, trusting that they still hold their defaults (1 and 0)."""

from torch import nn


def init_layer(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
    elif isinstance(module, nn.Conv1d | nn.Conv2d | nn.Conv3d):
        nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
    else:
        return
    if module.bias is not None:
        nn.init.zeros_(module.bias)


def init_weights(model):
    return model.apply(init_layer)
