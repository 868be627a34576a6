"""Wrong: treats a whole channel as one unit (dead only if zero at every position), so a
conv output's positions are not counted one by one."""

import torch
from torch import nn


def dead_relu_fraction(model, x):
    if x.shape[0] == 0:
        raise ValueError("empty batch")
    fractions = {}
    handles = []

    def record(name):
        def hook(module, inputs, output):
            channels = output.transpose(0, 1).reshape(output.shape[1], -1)
            fractions[name] = (channels == 0).all(dim=1).float().mean().item()

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
