"""Wrong: reports the fraction of zero outputs, so a unit that fires for only a few examples
counts as mostly dead, instead of units that are zero for every example."""

import torch
from torch import nn


def dead_relu_fraction(model, x):
    if x.shape[0] == 0:
        raise ValueError("empty batch")
    fractions = {}
    handles = []

    def record(name):
        def hook(module, inputs, output):
            fractions[name] = (output == 0).float().mean().item()

        return hook

    try:
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                handles.append(module.register_forward_hook(record(name)))
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return fractions
