"""Wrong: runs the model on the caller's x itself, which a first nn.ReLU(inplace=True)
overwrites."""

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

    buffers = [(buffer, buffer.clone()) for buffer in model.buffers()]
    handles = []
    try:
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                handles.append(module.register_forward_hook(record(name)))
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
        with torch.no_grad():
            for buffer, saved in buffers:
                buffer.copy_(saved)
    return fractions
