"""Wrong: replaces each weight with a new nn.Parameter, created on the CPU in float32,
instead of filling the existing one in place."""

import math

import torch
from torch import nn

from solutions.q17_init_weights import init_layer as reference_init_layer


def init_layer(module):
    if isinstance(module, nn.Linear):
        std = math.sqrt(2 / (module.in_features + module.out_features))
        module.weight = nn.Parameter(torch.randn(module.weight.shape) * std)
        if module.bias is not None:
            module.bias = nn.Parameter(torch.zeros(module.out_features))
    else:
        reference_init_layer(module)


def init_weights(model):
    return model.apply(init_layer)
