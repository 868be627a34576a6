"""Correct: the new value computed out of place and copied into each parameter; state
bytes by a recursive walk; the race from a table of optimizer factories."""

import torch


class SGD(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False):  # fmt: skip
        for name, value in (("lr", lr), ("momentum", momentum), ("weight_decay", weight_decay)):
            if value < 0:
                raise ValueError(f"{name} must be >= 0, got {value}")
        if nesterov and not (momentum > 0 and dampening == 0):
            raise ValueError("nesterov needs momentum > 0 and dampening == 0")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov})  # fmt: skip

    def step(self, closure=None):
        result = None
        if closure is not None:
            with torch.enable_grad():
                result = closure()
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return result

    def _update(self, p, group):
        g = p.grad + group["weight_decay"] * p if group["weight_decay"] != 0 else p.grad
        mu = group["momentum"]
        if mu != 0:
            state = self.state[p]
            if "momentum_buffer" in state and state["momentum_buffer"] is not None:
                velocity = mu * state["momentum_buffer"] + (1 - group["dampening"]) * g
            else:
                velocity = g.clone()
            state["momentum_buffer"] = velocity
            g = g + mu * velocity if group["nesterov"] else velocity
        p.copy_(p - group["lr"] * g)


def _bytes(value):
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_bytes(item) for item in value)
    return 0


def optimizer_state_bytes(optimizer):
    return int(sum(_bytes(v) for entry in optimizer.state.values() for v in entry.values()))


def race_in_a_valley(scales, steps=100):
    lr = 1.0 / float(scales.max())
    factories = {
        "sgd": lambda ps: torch.optim.SGD(ps, lr=lr),
        "momentum": lambda ps: torch.optim.SGD(ps, lr=lr, momentum=0.9),
        "adam": lambda ps: torch.optim.Adam(ps, lr=0.1),
    }
    curvature = scales.detach()
    reached = {}
    with torch.enable_grad():
        for name, make in factories.items():
            x = torch.ones_like(curvature).requires_grad_()
            optimizer = make([x])
            for _ in range(steps):
                optimizer.zero_grad()
                loss = (curvature * x * x).sum() * 0.5
                loss.backward()
                optimizer.step()
            reached[name] = x.detach()
    return reached
