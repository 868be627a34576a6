"""Correct: the docstring's formulas written out as in-place mul_/add_/addcmul_ chains,
validation up front, one no_grad block."""

from collections.abc import Sequence

import torch


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
    if not len(params) == len(grads) == len(exp_avgs) == len(exp_avg_sqs):
        raise ValueError("params, grads, exp_avgs and exp_avg_sqs differ in length")
    if step < 1:
        raise ValueError(f"step counts from 1, got {step}")
    if lr < 0 or eps < 0 or weight_decay < 0:
        raise ValueError("lr, eps and weight_decay must be >= 0")
    beta1, beta2 = betas
    if not (0.0 <= beta1 < 1.0 and 0.0 <= beta2 < 1.0):
        raise ValueError(f"betas must be in [0, 1), got {betas}")
    correction1 = 1 - beta1**step
    correction2 = 1 - beta2**step
    with torch.no_grad():
        for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs, strict=True):
            if weight_decay != 0:
                if decoupled:
                    p.mul_(1 - lr * weight_decay)
                else:
                    g = g + weight_decay * p
            m.mul_(beta1).add_(g, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denom = (v / correction2).sqrt_().add_(eps)
            p.sub_(lr * (m / correction1) / denom)
