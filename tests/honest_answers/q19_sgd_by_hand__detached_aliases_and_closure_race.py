"""Updates through detached aliases (p.detach().add_(...)) instead of a no_grad block, the
velocity stored as torch.clone(g); a stack walk over Tensor.nbytes; the race run through
step(closure) with the learning rate divided in scales' own dtype."""

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
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and not (momentum > 0 and dampening == 0):
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
        loss = None
        if closure is not None:
            with torch.set_grad_enabled(True):
                loss = closure()
        for group in self.param_groups:
            lr, momentum, dampening, weight_decay, nesterov = (
                group[key] for key in ("lr", "momentum", "dampening", "weight_decay", "nesterov")
            )
            for param in group["params"]:
                if param.grad is None:
                    continue
                p = param.detach()  # shares param's memory; ops on it record nothing
                d_p = param.grad.detach()
                if weight_decay != 0:
                    d_p = d_p.add(p, alpha=weight_decay)
                if momentum != 0:
                    state = self.state[param]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = torch.clone(d_p).detach()
                    else:
                        buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                    d_p = d_p.add(buf, alpha=momentum) if nesterov else buf
                p.add_(d_p, alpha=-lr)
        return loss


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    total = 0
    pending: list[Any] = [v for entry in optimizer.state.values() for v in entry.values()]
    while pending:
        item = pending.pop()
        if isinstance(item, torch.Tensor):
            total += item.nbytes
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return total


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    s = scales.detach()
    lr = (1 / s.max()).item()

    def run(make: Callable[[torch.Tensor], torch.optim.Optimizer]) -> torch.Tensor:
        x = torch.ones_like(s, requires_grad=True)
        optimizer = make(x)

        def closure() -> torch.Tensor:
            optimizer.zero_grad()
            f = 0.5 * torch.sum(s * x * x)
            f.backward()
            return f

        with torch.set_grad_enabled(True):
            for _ in range(steps):
                optimizer.step(closure)
        return x.detach()

    return {
        "sgd": run(lambda x: torch.optim.SGD([x], lr=lr)),
        "momentum": run(lambda x: torch.optim.SGD([x], lr=lr, momentum=0.9)),
        "adam": run(lambda x: torch.optim.Adam([x], lr=0.1)),
    }
