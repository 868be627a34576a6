"""Wrong: runs the forward pass with gradients enabled, so it records an autograd graph
(nothing calls backward, but every activation is saved for it)."""

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
        model(x)  # no torch.no_grad(): the graph is built
    finally:
        for handle in handles:
            handle.remove()
        for buffer, saved in buffers:
            buffer.data.copy_(saved)
    return fractions
