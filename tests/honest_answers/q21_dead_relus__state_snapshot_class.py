"""Counts done in Python ints, a small snapshot class that restores buffers and parameters."""

import math
from collections.abc import Callable, Mapping

import torch
from torch import nn


def _as_rows(t: torch.Tensor) -> torch.Tensor:
    # (N, *units) -> (N, units); math.prod keeps a zero-unit shape such as (3, 0) valid
    return t.reshape(t.shape[0], math.prod(t.shape[1:]))


def _fraction(mask: torch.Tensor) -> float:
    units = mask.numel()
    return int(mask.sum().item()) / units if units else 0.0


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if pre.dim() == 0:
        raise ValueError("pre needs a batch dimension")
    if pre.shape[0] == 0:
        raise ValueError("pre has no example")
    if math.prod(pre.shape[1:]) == 0:
        raise ValueError("pre has no unit")
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")

    report: dict[str, tuple[float, float]] = {}
    for name, f in activations.items():
        x = pre.detach().clone().requires_grad_(True)
        with torch.enable_grad():
            y = f(x)
            (slope,) = torch.autograd.grad(y.sum(), x)
        y, slope = _as_rows(y.detach()), _as_rows(slope)
        dead = ((y == 0) & (slope == 0)).all(dim=0)
        # compare in float64 so the threshold is not rounded into pre's dtype
        saturated = (slope.abs().to(torch.float64) < threshold).all(dim=0)
        report[name] = (_fraction(dead), _fraction(saturated))
    return report


_OUTPUTS: dict[str, Callable[[], nn.Module] | None] = {
    "regression": None,
    "positive": nn.Softplus,
    "bounded": nn.Tanh,
    "binary": None,
    "multilabel": None,
    "multiclass": None,
    "multiclass_nll": lambda: nn.LogSoftmax(dim=1),
}


def output_activation(task: str) -> nn.Module | None:
    if not isinstance(task, str) or task not in _OUTPUTS:
        raise ValueError(f"unknown task {task!r}")
    factory = _OUTPUTS[task]
    return None if factory is None else factory()


class _Snapshot:
    """The values of every buffer and parameter of a model, to write back into the same tensors."""

    def __init__(self, model: nn.Module) -> None:
        tensors = [*model.buffers(), *model.parameters()]
        self.entries = [(tensor, tensor.detach().clone()) for tensor in tensors]

    def restore(self) -> None:
        with torch.no_grad():
            for tensor, saved in self.entries:
                tensor.copy_(saved)


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.dim() == 0 or x.shape[0] == 0:
        raise ValueError("x needs at least one example")

    fractions: dict[str, float] = {}

    def recorder(name: str) -> Callable[[nn.Module, object, torch.Tensor], None]:
        def hook(module: nn.Module, inputs: object, output: torch.Tensor) -> None:
            fractions[name] = _fraction((_as_rows(output) == 0).all(dim=0))

        return hook

    snapshot = _Snapshot(model)
    handles = [
        module.register_forward_hook(recorder(name))
        for name, module in model.named_modules()
        if isinstance(module, nn.ReLU)
    ]
    try:
        with torch.no_grad():
            model(x.clone())
    finally:
        for handle in handles:
            handle.remove()
        snapshot.restore()
    return fractions
