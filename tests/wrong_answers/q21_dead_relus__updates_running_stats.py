"""Wrong: leaves the running statistics a training-mode forward gives BatchNorm updated."""

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

    handles = []
    try:
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                handles.append(module.register_forward_hook(record(name)))
        with torch.no_grad():  # a measurement: no graph, no gradients
            model(x)
    finally:
        # Removing through the handles takes off our hooks only, whatever happened above.
        for handle in handles:
            handle.remove()
    return fractions
