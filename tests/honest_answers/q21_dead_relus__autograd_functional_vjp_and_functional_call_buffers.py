"""Slopes by torch.autograd.functional.vjp with a vector of ones; a table of factories; the
forward pass through torch.func.functional_call on cloned buffers, so the model's own are
never written."""

import functools
from collections.abc import Callable, Mapping

import torch
from torch import nn

_FINAL: dict[str, Callable[[], nn.Module] | None] = {
    "regression": None,
    "binary": None,
    "multilabel": None,
    "multiclass": None,
    "positive": nn.Softplus,
    "bounded": nn.Tanh,
    "multiclass_nll": functools.partial(nn.LogSoftmax, dim=1),
}


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if pre.ndim < 1 or 0 in (pre.shape[0], pre[0].numel() if pre.shape[0] else 0):
        raise ValueError("pre must hold at least one example of at least one unit")
    if not threshold > 0:
        raise ValueError(f"threshold must be positive, not {threshold!r}")
    x = pre.detach().clone()
    flat = x.shape[0], x[0].numel()
    fractions = {}
    for name, f in activations.items():
        # f is elementwise: its Jacobian is diagonal, so ones @ J is every slope at once.
        # autograd.functional turns autograd on for the call itself, under no_grad too.
        out, slope = torch.autograd.functional.vjp(f, x, torch.ones_like(x))
        dead = torch.logical_and(out == 0, slope == 0).reshape(flat).all(0)
        saturated = (slope.to(torch.float64).abs() < threshold).reshape(flat).all(0)
        units = flat[1]
        fractions[name] = (
            dead.to(torch.float64).sum().item() / units,
            saturated.to(torch.float64).sum().item() / units,
        )
    return fractions


def output_activation(task: str) -> nn.Module | None:
    try:
        factory = _FINAL[task]
    except KeyError:
        raise ValueError(f"no final activation known for task {task!r}") from None
    return None if factory is None else factory()


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.ndim == 0 or len(x) == 0:
        raise ValueError("x has no examples")
    found: dict[str, float] = {}

    def hook(name: str, module: nn.Module, args: tuple, out: torch.Tensor) -> None:
        per_unit = (out == 0).reshape(out.shape[0], -1) if out[0].numel() else None
        found[name] = 0.0 if per_unit is None else per_unit.all(0).double().mean().item()

    handles = [
        m.register_forward_hook(functools.partial(hook, name))
        for name, m in model.named_modules()
        if isinstance(m, nn.ReLU)
    ]
    # The forward writes its running statistics into copies swapped in for the call.
    copies = {name: b.clone() for name, b in model.named_buffers()}
    try:
        with torch.no_grad():
            torch.func.functional_call(model, copies, (x.clone(),))
    finally:
        for h in handles:
            h.remove()
    return found
