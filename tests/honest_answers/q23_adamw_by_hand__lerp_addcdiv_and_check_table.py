"""torch's own in-place idioms: lerp_ for the first moment, addcmul_ for the second, addcdiv_
for the step, the bias corrections folded into a step size and a sqrt divisor; validation
through a table of (name, check) pairs before any tensor is touched."""

import math
from collections.abc import Sequence

import torch


def _validate(lists: Sequence[Sequence[torch.Tensor]], step: int, **settings: float) -> None:
    if len({len(each) for each in lists}) > 1:
        raise ValueError(
            f"params, grads, exp_avgs, exp_avg_sqs differ in length: {[len(x) for x in lists]}"
        )
    checks = {
        "step": step >= 1,
        "lr": not settings["lr"] < 0,
        "eps": not settings["eps"] < 0,
        "weight_decay": not settings["weight_decay"] < 0,
        "beta1": 0.0 <= settings["beta1"] < 1.0,
        "beta2": 0.0 <= settings["beta2"] < 1.0,
    }
    bad = [name for name, ok in checks.items() if not ok]
    if bad:
        raise ValueError(f"invalid Adam setting(s): {', '.join(bad)}")


def adamw_step_(
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    exp_avgs: Sequence[torch.Tensor],
    exp_avg_sqs: Sequence[torch.Tensor],
    step: int,
    *,
    lr: float,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    weight_decay: float = 1e-2,
    decoupled: bool = True,
) -> None:
    beta1, beta2 = betas
    _validate(
        (params, grads, exp_avgs, exp_avg_sqs),
        step,
        lr=lr,
        eps=eps,
        weight_decay=weight_decay,
        beta1=beta1,
        beta2=beta2,
    )
    step_size = lr / (1 - beta1**step)
    bias_correction2_sqrt = math.sqrt(1 - beta2**step)
    with torch.no_grad():
        for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
            if weight_decay != 0:
                if decoupled:
                    p.mul_(1 - lr * weight_decay)
                else:
                    g = g.add(p, alpha=weight_decay)
            m.lerp_(g, 1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denom = (v.sqrt() / bias_correction2_sqrt).add_(eps)
            p.addcdiv_(m, denom, value=-step_size)
