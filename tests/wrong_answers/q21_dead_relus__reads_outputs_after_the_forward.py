"""Wrong: keeps the ReLU outputs and counts the dead units after the forward pass, when an
in-place op later in the model may have changed them."""

import torch
from torch import nn


def dead_relu_fraction(model, x):
    if x.shape[0] == 0:
        raise ValueError("x needs at least one example")
    outputs = {}

    def record(name):
        def hook(module, inputs, output):
            outputs[name] = output  # the tensor itself, counted later

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
    return {
        name: (output.reshape(output.shape[0], -1) == 0).all(dim=0).float().mean().item()
        for name, output in outputs.items()
    }
