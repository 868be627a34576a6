"""Wrong: calls the closure in whatever grad mode step() was called in, so under
torch.no_grad() its backward fails."""

import torch

from solutions.q19_sgd_by_hand import (  # the rest as in the reference
    SGD as Reference,
    optimizer_state_bytes,
    race_in_a_valley,
)


class SGD(Reference):
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        with torch.no_grad():
            for group in self.param_groups:
                lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
                weight_decay, nesterov = group["weight_decay"], group["nesterov"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    d_p = p.grad.add(p, alpha=weight_decay) if weight_decay else p.grad
                    if momentum:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = state["momentum_buffer"] = d_p.clone()
                        else:
                            buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                        d_p = d_p.add(buf, alpha=momentum) if nesterov else buf
                    p.add_(d_p, alpha=-lr)
        return loss
