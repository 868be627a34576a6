"""Wrong: switches the model to eval mode for the measurement (and back), so BatchNorm uses its
running statistics instead of the batch's and the dead units differ from training mode's."""

import torch
from torch import nn


def dead_relu_fraction(model, x):
    if x.shape[0] == 0:
        raise ValueError("x needs at least one example")
    fractions = {}

    def record(name):
        def hook(module, inputs, output):
            dead = (output.reshape(output.shape[0], -1) == 0).all(dim=0)
            fractions[name] = dead.float().mean().item()

        return hook

    modes = {module: module.training for module in model.modules()}
    handles = []
    try:
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                handles.append(module.register_forward_hook(record(name)))
        model.eval()
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
        for module, training in modes.items():
            module.training = training
    return fractions
