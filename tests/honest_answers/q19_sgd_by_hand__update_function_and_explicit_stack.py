"""(group, param) pairs from one generator expression, each updated by a module-level function
with torch.add/torch.clone; state bytes by an explicit stack; optimizers from functools.partial."""

import functools
from collections.abc import Callable, Iterable
from typing import Any

import torch


def _update(p: torch.Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
    """One SGD step of p in place (called under no_grad); p.grad is only read."""
    assert p.grad is not None
    direction = p.grad
    if group["weight_decay"] != 0:
        direction = torch.add(direction, p, alpha=group["weight_decay"])
    momentum = group["momentum"]
    if momentum != 0:
        if "momentum_buffer" not in state:
            velocity = torch.clone(direction).detach()  # its own memory
            state["momentum_buffer"] = velocity
        else:
            velocity = state["momentum_buffer"]
            velocity.mul_(momentum).add_(direction, alpha=1 - group["dampening"])
        if group["nesterov"]:
            direction = torch.add(direction, velocity, alpha=momentum)
        else:
            direction = velocity
    p.add_(direction, alpha=-group["lr"])


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
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(
            params,
            {
                "lr": lr,
                "momentum": momentum,
                "dampening": dampening,
                "weight_decay": weight_decay,
                "nesterov": nesterov,
            },
        )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        result = None
        if closure is not None:
            with torch.enable_grad():
                result = closure()
        updates = (
            (group, p) for group in self.param_groups for p in group["params"] if p.grad is not None
        )
        with torch.no_grad():
            for group, p in updates:
                # self.state[p] only for a parameter that has a gradient
                _update(p, self.state[p], group)
        return result


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    total = 0
    pending: list[Any] = list(optimizer.state.values())
    while pending:
        item = pending.pop()
        if isinstance(item, torch.Tensor):
            total += item.numel() * item.element_size()
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return total


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    scales = scales.detach()
    lr = 1.0 / float(scales.max())
    contenders = {
        "sgd": functools.partial(torch.optim.SGD, lr=lr),
        "momentum": functools.partial(torch.optim.SGD, lr=lr, momentum=0.9),
        "adam": functools.partial(torch.optim.Adam, lr=0.1),
    }
    reached: dict[str, torch.Tensor] = {}
    for name, make in contenders.items():
        x = torch.ones_like(scales).requires_grad_()
        optimizer = make([x])
        for _ in range(steps):
            optimizer.zero_grad()
            with torch.enable_grad():
                loss = 0.5 * torch.sum(scales * x**2)
            loss.backward()
            optimizer.step()
        reached[name] = x.detach()
    return reached
