"""contextlib.ExitStack holding the hook handles, a state_dict copy to restore buffers; slopes by
forward-mode autodiff (torch.func.jvp), the output activation by a match statement."""

import contextlib
from collections.abc import Callable, Mapping

import torch
from torch import nn


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if pre.ndim == 0 or pre.shape[0] == 0 or pre[0].numel() == 0:
        raise ValueError(f"pre needs examples and units, got shape {tuple(pre.shape)}")
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    x = pre.detach().reshape(pre.shape[0], -1)
    # f is elementwise, so its Jacobian is diagonal: one jvp with a tangent of ones gives every
    # slope at once, forward-mode, without touching the caller's graph or grad mode.
    ones = torch.ones_like(x)
    found = {}
    for name, f in activations.items():
        out, slope = torch.func.jvp(f, (x,), (ones,))
        dead = ((out == 0) & (slope == 0)).all(dim=0)
        saturated = (slope.abs().double() < threshold).all(dim=0)  # threshold unrounded
        found[name] = (dead.double().mean().item(), saturated.double().mean().item())
    return found


def output_activation(task: str) -> nn.Module | None:
    match task:
        case "regression" | "binary" | "multilabel" | "multiclass":
            return None  # the loss takes the raw output (logits where it squashes itself)
        case "positive":
            return nn.Softplus()
        case "bounded":
            return nn.Tanh()
        case "multiclass_nll":
            return nn.LogSoftmax(dim=1)
        case _:
            raise ValueError(f"unknown task {task!r}")


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.shape[0] == 0:
        raise ValueError("x has no examples")
    found: dict[str, float] = {}

    def recorder(name: str):  # type: ignore[no-untyped-def]
        def hook(module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
            alive = (output != 0).any(dim=0)
            found[name] = 1.0 - alive.float().mean().item() if alive.numel() else 0.0

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
