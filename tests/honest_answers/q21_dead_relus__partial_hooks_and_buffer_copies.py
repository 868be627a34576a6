"""functools.partial hooks with try/finally, buffer copies put back, dict-of-factories dispatch."""

import functools
from collections.abc import Callable, Mapping

import torch
from torch import nn


def _per_unit_all(flags: torch.Tensor) -> torch.Tensor:
    return flags.reshape(flags.shape[0], -1).all(dim=0)


def _fraction(unit_flags: torch.Tensor) -> float:
    units = unit_flags.numel()
    return 0.0 if units == 0 else int(unit_flags.sum().item()) / units


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if pre.dim() == 0 or pre.shape[0] == 0 or pre[0].numel() == 0:
        raise ValueError(f"pre needs examples and units, got shape {tuple(pre.shape)}")
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    result: dict[str, tuple[float, float]] = {}
    for name, f in activations.items():
        with torch.enable_grad():
            x = pre.detach().clone().requires_grad_(True)
            out = f(x)
            (slope,) = torch.autograd.grad(out.sum(), x)
        dead = _per_unit_all((out.detach() == 0) & (slope == 0))
        saturated = _per_unit_all(slope.abs().to(torch.float64) < threshold)
        result[name] = (_fraction(dead), _fraction(saturated))
    return result


_OUTPUTS: dict[str, Callable[[], nn.Module | None]] = {
    "regression": lambda: None,
    "positive": nn.Softplus,
    "bounded": nn.Tanh,
    "binary": nn.Identity,
    "multilabel": nn.Identity,
    "multiclass": lambda: None,
    "multiclass_nll": functools.partial(nn.LogSoftmax, dim=1),
}


def output_activation(task: str) -> nn.Module | None:
    try:
        factory = _OUTPUTS[task]
    except KeyError:
        raise ValueError(f"unknown task {task!r}") from None
    return factory()


def _record(store: dict[str, float], name: str, module: nn.Module, inputs, output) -> None:
    store[name] = _fraction(_per_unit_all(output == 0))


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.dim() == 0 or x.shape[0] == 0:
        raise ValueError("x needs at least one example")
    fractions: dict[str, float] = {}
    saved = [(b, b.detach().clone()) for _, b in model.named_buffers(remove_duplicate=False)]
    handles = [
        module.register_forward_hook(functools.partial(_record, fractions, name))
        for name, module in model.named_modules()
        if isinstance(module, nn.ReLU)
    ]
    try:
        with torch.no_grad():
            model(x.clone())
    finally:
        for handle in handles:
            handle.remove()
        with torch.no_grad():
            for buffer, copy in saved:
                buffer.copy_(copy)
    return fractions
