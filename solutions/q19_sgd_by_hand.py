"""Kata 19: SGD with momentum and Nesterov momentum by hand (reference answer)."""

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
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(
                f"lr, momentum and weight_decay must be >= 0, got {lr}, {momentum}, {weight_decay}"
            )
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum needs momentum > 0 and dampening 0")
        # The base class turns params into groups and fills each group's missing keys
        # from these defaults; state_dict() and schedulers work from there.
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
        )
        super().__init__(params, defaults)

    @torch.no_grad()  # the update is not part of any model: record no graph
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():  # the closure runs backward, which needs a graph
                loss = closure()
        for group in self.param_groups:
            # Read the hyperparameters now: a scheduler may have changed them.
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            for p in group["params"]:
                if p.grad is None:
                    continue  # no gradient this step (frozen or unused): leave it alone
                # Out-of-place add: p.grad belongs to the caller and stays as it is.
                d_p = p.grad.add(p, alpha=weight_decay) if weight_decay else p.grad
                if momentum:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        # The first velocity is the gradient itself, undampened.
                        buf = state["momentum_buffer"] = d_p.clone()
                    else:
                        buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                    d_p = d_p.add(buf, alpha=momentum) if nesterov else buf
                p.add_(d_p, alpha=-lr)
        return loss


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    total = 0
    for entries in optimizer.state.values():
        for value in entries.values():
            # Adam's step counter is a 0-dim tensor too; a list holds a buffer per entry.
            for tensor in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(tensor, torch.Tensor):
                    total += tensor.numel() * tensor.element_size()
    return total


@torch.enable_grad()  # backward needs a graph, even when the caller is under no_grad
def _descend(scales: torch.Tensor, steps: int, make_optimizer) -> torch.Tensor:
    scales = scales.detach()  # x alone is optimised: the caller's scales get no .grad
    x = torch.ones_like(scales, requires_grad=True)
    optimizer = make_optimizer([x])
    for _ in range(steps):
        optimizer.zero_grad()
        (0.5 * (scales * x**2).sum()).backward()
        optimizer.step()
    return x.detach()


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    # SGD's rate is capped by the steepest curvature; the flat directions then move by
    # a factor (1 - lr * scale) per step. Adam rescales every coordinate by its own
    # gradient size, so each direction moves at about the same pace.
    lr = 1 / scales.max().item()
    return {
        "sgd": _descend(scales, steps, lambda p: torch.optim.SGD(p, lr=lr)),
        "momentum": _descend(scales, steps, lambda p: torch.optim.SGD(p, lr=lr, momentum=0.9)),
        "adam": _descend(scales, steps, lambda p: torch.optim.Adam(p, lr=0.1)),
    }
