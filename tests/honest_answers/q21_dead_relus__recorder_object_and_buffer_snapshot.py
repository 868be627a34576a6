"""A callable dataclass as the hook, a buffer snapshot restored in finally, factories."""

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import torch
from torch import nn

log = logging.getLogger(__name__)


def _dead_mask(output: torch.Tensor, slope: torch.Tensor | None = None) -> torch.Tensor:
    """Per unit: True when every example's output (and slope, if given) is exactly 0."""
    n = output.shape[0]
    zero = output.reshape(n, -1) == 0
    if slope is not None:
        zero &= slope.reshape(n, -1) == 0
    return zero.all(dim=0)


def _fraction(flags: torch.Tensor) -> float:
    # Counted as Python ints, so no low-precision dtype rounds the ratio.
    return int(flags.sum()) / flags.numel() if flags.numel() else 0.0


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    if pre.dim() == 0 or pre.shape[0] == 0 or pre[0].numel() == 0:
        raise ValueError(
            f"pre needs at least one example and one unit, got shape {tuple(pre.shape)}"
        )
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    n = pre.shape[0]
    result: dict[str, tuple[float, float]] = {}
    for name, f in activations.items():
        with torch.enable_grad():
            x = pre.detach().clone().requires_grad_(True)
            out = f(x)
            (slope,) = torch.autograd.grad(out, x, grad_outputs=torch.ones_like(out))
        # Compared in float64, so the threshold is not rounded into pre's dtype.
        saturated = (slope.reshape(n, -1).to(torch.float64).abs() < threshold).all(dim=0)
        result[name] = (_fraction(_dead_mask(out.detach(), slope)), _fraction(saturated))
    return result


_OUTPUTS: dict[str, Callable[[], nn.Module | None]] = {
    "regression": lambda: None,
    "positive": nn.Softplus,
    "bounded": nn.Tanh,
    "binary": lambda: None,
    "multilabel": lambda: None,
    "multiclass": lambda: None,
    "multiclass_nll": lambda: nn.LogSoftmax(dim=1),
}


def output_activation(task: str) -> nn.Module | None:
    if not isinstance(task, str) or task not in _OUTPUTS:
        raise ValueError(f"unknown task {task!r}; expected one of {sorted(_OUTPUTS)}")
    return _OUTPUTS[task]()


@dataclass
class _DeadUnitRecorder:
    """A forward hook: the dead fraction of each ReLU's output, by the ReLU's name."""

    names: dict[nn.Module, str]
    found: dict[str, float] = field(default_factory=dict)

    def __call__(self, module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
        self.found[self.names[module]] = _fraction(_dead_mask(output))


@dataclass
class _BufferSnapshot:
    """Every module's buffers as they were: the tensor objects and copies of their values."""

    saved: list[tuple[torch.Tensor, torch.Tensor]]

    @classmethod
    def of(cls, model: nn.Module) -> "_BufferSnapshot":
        # remove_duplicate=False: a buffer shared by two modules is saved (and put back) twice,
        # which is harmless; none is missed.
        buffers = model.named_buffers(remove_duplicate=False)
        return cls([(buffer, buffer.clone()) for _, buffer in buffers])

    def restore(self) -> None:
        with torch.no_grad():
            for buffer, values in self.saved:
                buffer.copy_(values)


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    if x.dim() == 0 or x.shape[0] == 0:
        raise ValueError(f"x needs at least one example, got shape {tuple(x.shape)}")
    relus = {m: name for name, m in model.named_modules() if isinstance(m, nn.ReLU)}
    recorder = _DeadUnitRecorder(relus)
    snapshot = _BufferSnapshot.of(model)
    handles = [relu.register_forward_hook(recorder) for relu in relus]
    try:
        with torch.no_grad():
            model(x.clone())
    finally:
        for handle in handles:
            handle.remove()
        snapshot.restore()
    log.debug("dead ReLU units: %s", recorder.found)
    # In the order named_modules gives, the ReLUs that did not run left out.
    return {name: recorder.found[name] for name in relus.values() if name in recorder.found}
