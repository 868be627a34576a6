"""Correct: velocity rebuilt out of place each step, p.sub_ of the scaled step, state summed
through state_dict()."""

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
        if nesterov and not (momentum > 0 and dampening == 0):
            raise ValueError("nesterov needs momentum > 0 and dampening == 0")
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
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                for p in (q for q in group["params"] if q.grad is not None):
                    g = p.grad + group["weight_decay"] * p if group["weight_decay"] else p.grad
                    mu = group["momentum"]
                    if mu != 0:
                        if "momentum_buffer" in self.state.get(p, {}):
                            old = self.state[p]["momentum_buffer"]
                            buf = mu * old + (1 - group["dampening"]) * g
                        else:
                            buf = g.clone()
                        self.state[p]["momentum_buffer"] = buf
                        g = g + mu * buf if group["nesterov"] else buf
                    p.sub_(group["lr"] * g)
        return loss


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    def size(value: Any) -> int:
        if isinstance(value, torch.Tensor):
            return value.numel() * value.element_size()
        if isinstance(value, (list, tuple)):
            return sum(size(v) for v in value if isinstance(v, torch.Tensor))
        return 0

    return sum(size(v) for entry in optimizer.state.values() for v in entry.values())


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    curvature = scales.detach()
    lr = 1.0 / float(curvature.max())
    makers = {
        "sgd": lambda x: torch.optim.SGD([x], lr=lr),
        "momentum": lambda x: torch.optim.SGD([x], lr=lr, momentum=0.9),
        "adam": lambda x: torch.optim.Adam([x], lr=0.1),
    }
    reached = {}
    for name, make in makers.items():
        x = torch.ones(curvature.shape, dtype=curvature.dtype, device=curvature.device)
        x.requires_grad_(True)
        optimizer = make(x)
        with torch.enable_grad():
            for _ in range(steps):
                optimizer.zero_grad()
                loss = (curvature * x * x).sum() / 2
                loss.backward()
                optimizer.step()
        reached[name] = x.detach()
    return reached
