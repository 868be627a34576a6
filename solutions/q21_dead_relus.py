"""Kata 21: find dead ReLUs with forward hooks (reference answer)."""

import torch
from torch import nn


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.shape[0] == 0:
        raise ValueError("x needs at least one example to tell dead units from live ones")
    fractions: dict[str, float] = {}

    def record(name: str):
        def hook(module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
            # One row per example, one column per unit; dead = zero in every row.
            # Computed right away: a later in-place op could still change `output`.
            dead = (output.reshape(output.shape[0], -1) == 0).all(dim=0)
            fractions[name] = dead.float().mean().item()

        return hook

    # A forward in training mode updates BatchNorm's running statistics: keep copies to put
    # back, so that measuring leaves the model exactly as it was.
    buffers = [(buffer, buffer.clone()) for buffer in model.buffers()]
    handles = []
    try:
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                handles.append(module.register_forward_hook(record(name)))
        with torch.no_grad():  # a measurement: no graph, no gradients
            # On a copy: a model may work in place on its input (nn.ReLU(inplace=True)
            # first), and the caller's x must stay as it was.
            model(x.clone())
    finally:
        # Removing through the handles takes off our hooks only, whatever happened above.
        for handle in handles:
            handle.remove()
        with torch.no_grad():
            for buffer, saved in buffers:
                buffer.copy_(saved)
    return fractions
