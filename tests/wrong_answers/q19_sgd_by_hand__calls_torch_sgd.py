"""Wrong: hands the update to torch.optim's functional sgd, which the kata forbids."""

import torch
from torch.optim.sgd import sgd

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
            params = [p for p in group["params"] if p.grad is not None]
            buffers = [self.state[p].get("momentum_buffer") for p in params]
            sgd(
                params,
                [p.grad for p in params],
                buffers,
                weight_decay=group["weight_decay"],
                momentum=group["momentum"],
                lr=group["lr"],
                dampening=group["dampening"],
                nesterov=group["nesterov"],
                maximize=False,
            )
            if group["momentum"]:
                for p, buf in zip(params, buffers, strict=True):
                    self.state[p]["momentum_buffer"] = buf
        return loss
