"""torch.func.vjp for the slopes with counts as a float64 sum over an einsum; output_activation
from a dict of factories; hooks in a contextlib.contextmanager, buffers copied back from clones."""

import contextlib
from collections.abc import Callable, Iterator, Mapping

import torch
from torch import nn


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if pre.ndim < 1 or pre.shape[0] < 1 or pre.numel() == 0:
        raise ValueError(f"pre of shape {tuple(pre.shape)} has no example or no unit")
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold!r}")
    flat = pre.detach().clone().reshape(pre.shape[0], -1)
    units = flat.shape[1]
    fractions = {}
    for name, f in activations.items():
        with torch.enable_grad():
            out, pullback = torch.func.vjp(f, flat)
            (slope,) = pullback(torch.ones_like(out))
        dead = torch.logical_and(out == 0, slope == 0).all(0).to(torch.float64)
        saturated = (slope.abs().double() < threshold).all(0).to(torch.float64)
        fractions[name] = (dead.sum().item() / units, saturated.sum().item() / units)
    return fractions


_OUTPUTS: dict[str, Callable[[], nn.Module | None]] = {
    "regression": lambda: None,
    "binary": lambda: None,
    "multilabel": lambda: None,
    "multiclass": lambda: None,
    "positive": nn.Softplus,
    "bounded": nn.Tanh,
    "multiclass_nll": lambda: nn.LogSoftmax(dim=1),
}


def output_activation(task: str) -> nn.Module | None:
    if not isinstance(task, str) or task not in _OUTPUTS:
        raise ValueError(f"no output activation for task {task!r}")
    return _OUTPUTS[task]()


@contextlib.contextmanager
def _hooks(model: nn.Module, found: dict[str, float]) -> Iterator[list[str]]:
    names: list[str] = []
    handles = []

    def hook_for(name: str) -> Callable[..., None]:
        def hook(module: nn.Module, args: tuple, out: torch.Tensor) -> None:
            per_example = out.reshape(out.shape[0], -1)
            if per_example.shape[1] == 0:
                found[name] = 0.0
            else:
                dead = (per_example == 0).all(0)
                found[name] = dead.double().mean().item()

        return hook

    try:
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                names.append(name)
                handles.append(module.register_forward_hook(hook_for(name)))
        yield names
    finally:
        for handle in reversed(handles):
            handle.remove()


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.ndim == 0 or len(x) == 0:
        raise ValueError("x has no examples")
    buffers = list(model.named_buffers(remove_duplicate=True))
    saved = [buf.clone() for _, buf in buffers]
    found: dict[str, float] = {}
    try:
        with _hooks(model, found) as names, torch.no_grad():
            model(x.clone())
    finally:
        with torch.no_grad():
            for (_, buf), old in zip(buffers, saved, strict=True):
                buf.copy_(old)
    return {name: found[name] for name in names if name in found}
