"""Correct: the SGD rule as a pure per-tensor function, an Optimizer shell around it,
a recursive walk over optimizer state, and a table-driven race."""

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch


def _direction(
    grad: torch.Tensor,
    param: torch.Tensor,
    buffer: torch.Tensor | None,
    *,
    momentum: float,
    dampening: float,
    weight_decay: float,
    nesterov: bool,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The step direction for one tensor and its new velocity; `grad` is never written."""
    d = grad if weight_decay == 0 else grad.add(param, alpha=weight_decay)
    if momentum == 0:
        return d, None
    if buffer is None:
        buffer = d.clone()  # a tensor of its own, never an alias of the gradient
    else:
        buffer.mul_(momentum).add_(d, alpha=1 - dampening)
    return (d.add(buffer, alpha=momentum) if nesterov else buffer), buffer


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
        for name, value in (("lr", lr), ("momentum", momentum), ("weight_decay", weight_decay)):
            if value < 0:
                raise ValueError(f"invalid {name}: {value}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("nesterov momentum needs momentum > 0 and zero dampening")
        super().__init__(
            params,
            dict(
                lr=lr,
                momentum=momentum,
                dampening=dampening,
                weight_decay=weight_decay,
                nesterov=nesterov,
            ),
        )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        result = None
        if closure is not None:
            with torch.enable_grad():
                result = closure()
        with torch.no_grad():
            for group in self.param_groups:
                knobs = {
                    key: group[key] for key in ("momentum", "dampening", "weight_decay", "nesterov")
                }
                lr = group["lr"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    old = self.state[p].get("momentum_buffer") if knobs["momentum"] else None
                    d, new = _direction(p.grad, p, old, **knobs)
                    if new is not None:
                        self.state[p]["momentum_buffer"] = new
                    p.add_(d, alpha=-lr)
        return result


def _tensors(obj: Any) -> Iterator[torch.Tensor]:
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from _tensors(value)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _tensors(item)


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    return sum(t.numel() * t.element_size() for t in _tensors(list(optimizer.state.values())))


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    curv = scales.detach()
    lr = 1.0 / float(curv.max())
    makers: dict[str, Callable[[list[torch.Tensor]], torch.optim.Optimizer]] = {
        "sgd": lambda ps: torch.optim.SGD(ps, lr=lr),
        "momentum": lambda ps: torch.optim.SGD(ps, lr=lr, momentum=0.9),
        "adam": lambda ps: torch.optim.Adam(ps, lr=0.1),
    }

    def run(make: Callable[[list[torch.Tensor]], torch.optim.Optimizer]) -> torch.Tensor:
        x = torch.ones_like(curv, requires_grad=True)
        opt = make([x])
        with torch.enable_grad():
            for _ in range(steps):
                opt.zero_grad()
                (0.5 * (curv * x * x).sum()).backward()
                opt.step()
        return x.detach()

    return {name: run(make) for name, make in makers.items()}
