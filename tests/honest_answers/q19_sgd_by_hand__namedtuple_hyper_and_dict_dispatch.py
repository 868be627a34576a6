"""Each group's settings read into a NamedTuple, in-place updates under a no_grad block,
state sizes summed by a generator, and the three optimizers built from a dict of factories."""

from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import torch


class _Hyper(NamedTuple):
    lr: float
    momentum: float
    dampening: float
    weight_decay: float
    nesterov: bool


class SGD(torch.optim.Optimizer):
    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ) -> None:
        hyper = _Hyper(lr, momentum, dampening, weight_decay, nesterov)
        for name in ("lr", "momentum", "weight_decay"):
            if getattr(hyper, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(hyper, name)}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum needs momentum > 0 and dampening 0")
        super().__init__(params, hyper._asdict())

    def _update(self, p: torch.Tensor, hyper: _Hyper) -> None:
        g = p.grad
        if hyper.weight_decay != 0:
            g = g.add(p, alpha=hyper.weight_decay)  # a new tensor: p.grad stays
        if hyper.momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.detach().clone()
            else:
                buf.mul_(hyper.momentum).add_(g, alpha=1 - hyper.dampening)
            g = g.add(buf, alpha=hyper.momentum) if hyper.nesterov else buf
        p.add_(g, alpha=-hyper.lr)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                hyper = _Hyper(**{name: group[name] for name in _Hyper._fields})
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, hyper)
        return loss


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item)


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    entries = (v for per_param in optimizer.state.values() for v in per_param.values())
    return sum(t.numel() * t.element_size() for v in entries for t in _tensors(v))


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    curvature = scales.detach()
    lr = 1.0 / curvature.max().item()
    factories: dict[str, Callable[[list[torch.Tensor]], torch.optim.Optimizer]] = {
        "sgd": lambda params: torch.optim.SGD(params, lr=lr),
        "momentum": lambda params: torch.optim.SGD(params, lr=lr, momentum=0.9),
        "adam": lambda params: torch.optim.Adam(params, lr=0.1),
    }
    reached = {}
    with torch.enable_grad():
        for name, make in factories.items():
            x = torch.ones_like(curvature).requires_grad_()
            optimizer = make([x])
            for _ in range(steps):
                optimizer.zero_grad()
                loss = 0.5 * (curvature * x**2).sum()
                loss.backward()
                optimizer.step()
            reached[name] = x.detach()
    return reached
