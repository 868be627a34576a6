"""Wrong: starts the momentum buffer at zeros, so dampening also shrinks the first step
(torch.optim.SGD starts it at the first gradient, undampened)."""

import torch

from solutions.q19_sgd_by_hand import (  # the rest as in the reference
    SGD as Reference,
    optimizer_state_bytes,
    race_in_a_valley,
)


class SGD(Reference):
    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            momentum = group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad.add(p, alpha=group["weight_decay"])
                if momentum:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = torch.zeros_like(p)
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).add_(d_p, alpha=1 - group["dampening"])
                    d_p = d_p.add(buf, alpha=momentum) if group["nesterov"] else buf
                p.add_(d_p, alpha=-group["lr"])
        return loss
