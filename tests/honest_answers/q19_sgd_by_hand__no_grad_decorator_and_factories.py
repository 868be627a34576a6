"""step under a torch.no_grad() decorator with a per-parameter helper written as the docstring's
formulas, state bytes from a flattening generator, the race from a table of optimizer factories."""

import functools
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
                raise ValueError(f"{name} must be >= 0, got {value}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("nesterov needs momentum > 0 and dampening 0")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
        )
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        result = None
        if closure is not None:
            with torch.enable_grad():
                result = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, group)
        return result

    def _update(self, p: torch.Tensor, group: dict[str, Any]) -> None:
        g = p.grad
        assert g is not None
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p  # a new tensor: p.grad stays as it is
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = state["momentum_buffer"] = g.clone()
            else:
                buffer.mul_(momentum).add_((1 - group["dampening"]) * g)
            g = g + momentum * buffer if group["nesterov"] else buffer
        p.sub_(group["lr"] * g)


def _tensors(entry: object) -> Iterator[torch.Tensor]:
    if isinstance(entry, torch.Tensor):
        yield entry
    elif isinstance(entry, (list, tuple)):
        for item in entry:
            yield from _tensors(item)


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    # .values() reads only the entries there are; optimizer.state[p] would add empty ones.
    return sum(
        tensor.numel() * tensor.element_size()
        for per_parameter in optimizer.state.values()
        for value in per_parameter.values()
        for tensor in _tensors(value)
    )


@torch.enable_grad()  # the caller may be under no_grad; scales is data, never differentiated
def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    scales = scales.detach()
    lr = 1.0 / float(scales.max())
    factories: dict[str, Callable[[list[torch.Tensor]], torch.optim.Optimizer]] = {
        "sgd": functools.partial(torch.optim.SGD, lr=lr),
        "momentum": functools.partial(torch.optim.SGD, lr=lr, momentum=0.9),
        "adam": functools.partial(torch.optim.Adam, lr=0.1),
    }
    reached = {}
    for name, make in factories.items():
        x = torch.ones_like(scales, requires_grad=True)
        optimizer = make([x])
        for _ in range(steps):
            optimizer.zero_grad()
            (0.5 * (scales * x**2).sum()).backward()
            optimizer.step()
        reached[name] = x.detach()
    return reached
