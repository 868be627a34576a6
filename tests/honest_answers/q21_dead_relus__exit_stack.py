"""contextlib.ExitStack holding the hook handles, a state_dict copy to restore buffers."""

import contextlib

import torch
from torch import nn


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.shape[0] == 0:
        raise ValueError("x has no examples")
    found: dict[str, float] = {}

    def recorder(name: str):  # type: ignore[no-untyped-def]
        def hook(module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
            alive = (output != 0).any(dim=0)
            found[name] = 1.0 - alive.float().mean().item()

        return hook

    saved = {name: b.detach().clone() for name, b in model.named_buffers()}
    try:
        with contextlib.ExitStack() as stack, torch.no_grad():
            for name, module in model.named_modules():
                if isinstance(module, nn.ReLU):
                    stack.callback(module.register_forward_hook(recorder(name)).remove)
            model(x.clone())
    finally:
        with torch.no_grad():
            for name, b in model.named_buffers():
                b.copy_(saved[name])
    return found
