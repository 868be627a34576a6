"""List-at-a-time updates per group (the grads, buffers and parameters as parallel lists,
out-of-place where a new tensor is due), a generator that walks the state for the byte
count, and a table of optimizer factories for the race."""

from collections.abc import Callable, Iterable, Iterator
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
                raise ValueError(f"{name} must be non-negative, got {value}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum needs momentum > 0 and dampening == 0")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
        )
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _update_group(self, group: dict[str, Any]) -> None:
        params = [p for p in group["params"] if p.grad is not None]
        if not params:
            return
        lr = group["lr"]
        momentum = group["momentum"]
        dampening = group["dampening"]
        weight_decay = group["weight_decay"]
        nesterov = group["nesterov"]

        grads = [p.grad for p in params]
        if weight_decay != 0:
            grads = [torch.add(g, p, alpha=weight_decay) for g, p in zip(grads, params)]
        if momentum != 0:
            fresh = [i for i, p in enumerate(params) if "momentum_buffer" not in self.state[p]]
            for i in fresh:
                self.state[params[i]]["momentum_buffer"] = grads[i].detach().clone()
            old = [i for i in range(len(params)) if i not in set(fresh)]
            if old:
                bufs = [self.state[params[i]]["momentum_buffer"] for i in old]
                for buf, i in zip(bufs, old):
                    buf.mul_(momentum).add_(grads[i], alpha=1 - dampening)
            bufs = [self.state[p]["momentum_buffer"] for p in params]
            if nesterov:
                grads = [torch.add(g, b, alpha=momentum) for g, b in zip(grads, bufs)]
            else:
                grads = bufs
        for p, g in zip(params, grads):
            p.add_(g, alpha=-lr)


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item)


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    return sum(
        t.numel() * t.element_size()
        for per_param in optimizer.state.values()
        for value in per_param.values()
        for t in _tensors(value)
    )


_RACERS: dict[str, Callable[[list[torch.Tensor], float], torch.optim.Optimizer]] = {
    "sgd": lambda params, lr: torch.optim.SGD(params, lr=lr),
    "momentum": lambda params, lr: torch.optim.SGD(params, lr=lr, momentum=0.9),
    "adam": lambda params, lr: torch.optim.Adam(params, lr=0.1),
}


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    curvature = scales.detach()
    lr = 1.0 / curvature.max().item()
    reached = {}
    with torch.enable_grad():
        for name, make in _RACERS.items():
            x = torch.ones_like(curvature).requires_grad_()
            optimizer = make([x], lr)
            for _ in range(steps):
                optimizer.zero_grad()
                (0.5 * (curvature * x**2).sum()).backward()
                optimizer.step()
            reached[name] = x.detach()
    return reached
