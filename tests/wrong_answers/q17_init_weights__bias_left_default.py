"""Wrong: initialises the weights but leaves Linear and Conv biases at their old values."""

from torch import nn


def init_layer(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
    elif isinstance(module, nn.Conv1d | nn.Conv2d | nn.Conv3d):
        nn.init.kaiming_uniform_(module.weight, nonlinearity="relu")
    elif isinstance(module, nn.BatchNorm1d | nn.BatchNorm2d | nn.BatchNorm3d | nn.LayerNorm):
        if module.weight is not None:
            nn.init.ones_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.GroupNorm) and module.affine:
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


def init_weights(model):
    return model.apply(init_layer)
