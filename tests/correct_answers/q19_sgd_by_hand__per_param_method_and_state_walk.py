"""Correct: the update as a method per parameter inside one no_grad block, the state bytes
by a recursive walk, the race as a table of optimizer factories."""

from collections.abc import Callable, Iterable
from typing import Any

import torch


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
                raise ValueError(f"{name} must be >= 0, got {value}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("nesterov needs momentum > 0 and dampening 0")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
        }
        super().__init__(params, defaults)

    def _update(self, p: torch.Tensor, group: dict[str, Any]) -> None:
        assert p.grad is not None
        g = p.grad
        if group["weight_decay"] != 0:
            g = g.add(p, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.clone().detach()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(g, alpha=1 - group["dampening"])
            g = g.add(buf, alpha=momentum) if group["nesterov"] else buf
        p.add_(g, alpha=-group["lr"])

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss


def _tensor_bytes(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_tensor_bytes(item) for item in value)
    return 0


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    return sum(
        _tensor_bytes(entry) for state in optimizer.state.values() for entry in state.values()
    )


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    s = scales.detach()
    lr = 1.0 / s.max().item()
    factories: dict[str, Callable[[list[torch.Tensor]], torch.optim.Optimizer]] = {
        "sgd": lambda ps: torch.optim.SGD(ps, lr=lr),
        "momentum": lambda ps: torch.optim.SGD(ps, lr=lr, momentum=0.9),
        "adam": lambda ps: torch.optim.Adam(ps, lr=0.1),
    }
    reached = {}
    with torch.enable_grad():
        for name, make in factories.items():
            x = torch.ones_like(s).requires_grad_()
            optimizer = make([x])
            for _ in range(steps):
                optimizer.zero_grad()
                (0.5 * (s * x**2).sum()).backward()
                optimizer.step()
            reached[name] = x.detach()
    return reached
