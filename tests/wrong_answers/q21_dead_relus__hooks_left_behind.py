"""Wrong: registers the forward hooks and never removes them."""

import torch
from torch import nn


def dead_relu_fraction(model, x):
    if x.shape[0] == 0:
        raise ValueError("empty batch")
    fractions = {}

    def record(name):
        def hook(module, inputs, output):
            dead = (output.reshape(output.shape[0], -1) == 0).all(dim=0)
            fractions[name] = dead.float().mean().item()

        return hook

    for name, module in model.named_modules():
        if isinstance(module, nn.ReLU):
            module.register_forward_hook(record(name))
    with torch.no_grad():
        model(x)
    return fractions
