"""In-place methods: lerp_ for m, mul_/addcmul_ for v, addcdiv_ for the step, no_grad."""

import math
from collections.abc import Sequence

import torch


def _check(name: str, value: float, low: float, high: float | None = None) -> None:
    """value in [low, high), or >= low (inf included) without a high; NaN never is."""
    inside = low <= value if high is None else low <= value < high
    if not inside:
        raise ValueError(f"{name} = {value} is out of range")


@torch.no_grad()
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
    lengths = {len(params), len(grads), len(exp_avgs), len(exp_avg_sqs)}
    if len(lengths) != 1:
        raise ValueError(f"params, grads and both moments must be as many, got {sorted(lengths)}")
    if step < 1:
        raise ValueError(f"step counts from 1, got {step}")
    beta1, beta2 = betas
    _check("lr", lr, 0.0)
    _check("eps", eps, 0.0)
    _check("weight_decay", weight_decay, 0.0)
    _check("beta1", beta1, 0.0, 1.0)
    _check("beta2", beta2, 0.0, 1.0)

    step_size = lr / (1.0 - beta1**step)
    root_correction = math.sqrt(1.0 - beta2**step)
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs, strict=True):
        if decoupled:
            p.mul_(1.0 - lr * weight_decay)
        elif weight_decay:
            g = g.add(p, alpha=weight_decay)
        m.lerp_(g, 1.0 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1.0 - beta2)
        denom = v.sqrt().div_(root_correction).add_(eps)
        p.addcdiv_(m, denom, value=-step_size)
