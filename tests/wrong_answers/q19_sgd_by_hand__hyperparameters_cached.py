"""Wrong: keeps the hyperparameters on self in __init__ and ignores the param groups, so
per-group settings and a scheduler's changes to group["lr"] have no effect."""

import torch

from solutions.q19_sgd_by_hand import (  # the rest as in the reference
    optimizer_state_bytes,
    race_in_a_valley,
)


class SGD(torch.optim.Optimizer):
    def __init__(
        self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False
    ):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError("lr, momentum and weight_decay must be >= 0")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum needs momentum > 0 and dampening 0")
        self.lr, self.momentum, self.dampening = lr, momentum, dampening
        self.weight_decay, self.nesterov = weight_decay, nesterov
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
        )
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad.add(p, alpha=self.weight_decay)
                if self.momentum:
                    buf = self.state[p].get("momentum_buffer")
                    if buf is None:
                        buf = self.state[p]["momentum_buffer"] = d_p.clone()
                    else:
                        buf.mul_(self.momentum).add_(d_p, alpha=1 - self.dampening)
                    d_p = d_p.add(buf, alpha=self.momentum) if self.nesterov else buf
                p.add_(d_p, alpha=-self.lr)
        return loss
