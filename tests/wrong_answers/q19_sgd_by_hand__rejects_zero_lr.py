"""Wrong: rejects a learning rate of 0 (lr <= 0) although only negative values are invalid."""

from collections.abc import Callable, Iterable
from typing import Any

import torch

from solutions.q19_sgd_by_hand import (  # the rest as in the reference
    optimizer_state_bytes,
    race_in_a_valley,
)


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
        if lr <= 0 or momentum < 0 or weight_decay < 0:
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
