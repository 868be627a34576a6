"""Hyperparameters unpacked per group with operator.itemgetter, updates by sub_/mul_/add_ with
alpha under a no_grad block; state bytes by a recursive generator; optimizers from a dict."""

import operator
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch

_HYPER = operator.itemgetter("lr", "momentum", "dampening", "weight_decay", "nesterov")


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
                raise ValueError(f"invalid {name}: {value} (must be >= 0)")
        if nesterov and not (momentum > 0 and dampening == 0):
            raise ValueError("nesterov momentum needs momentum > 0 and dampening 0")
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
                lr, momentum, dampening, weight_decay, nesterov = _HYPER(group)
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    d_p = p.grad
                    if weight_decay != 0:
                        d_p = d_p.add(p, alpha=weight_decay)  # a new tensor: .grad kept
                    if momentum != 0:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = state["momentum_buffer"] = d_p.detach().clone()
                        else:
                            buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                        d_p = d_p.add(buf, alpha=momentum) if nesterov else buf
                    p.sub_(d_p, alpha=lr)
        return loss


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item)


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    # .values() of the defaultdict reads only the entries that exist
    return sum(
        t.numel() * t.element_size() for entry in optimizer.state.values() for t in _tensors(entry)
    )


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    curvature = scales.detach()
    lr = 1.0 / curvature.max().item()
    makers: dict[str, Callable[[list[torch.Tensor]], torch.optim.Optimizer]] = {
        "sgd": lambda params: torch.optim.SGD(params, lr=lr),
        "momentum": lambda params: torch.optim.SGD(params, lr=lr, momentum=0.9),
        "adam": lambda params: torch.optim.Adam(params, lr=0.1),
    }
    reached = {}
    with torch.enable_grad():
        for name, make in makers.items():
            x = torch.ones_like(curvature, requires_grad=True)
            optimizer = make([x])
            for _ in range(steps):
                optimizer.zero_grad()
                (0.5 * (curvature * x**2).sum()).backward()
                optimizer.step()
            reached[name] = x.detach()
    return reached
