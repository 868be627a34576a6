"""float64 internals: each step computed on float64 copies with the textbook formula, then
copied back into the caller's tensors (params, m, v) in their own dtype; @torch.no_grad() as
a decorator, and checks written as explicit if-statements with math.isnan."""

import math
from collections.abc import Sequence

import torch


def _check(
    lists: tuple[Sequence[torch.Tensor], ...],
    step: int,
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
) -> None:
    params, grads, exp_avgs, exp_avg_sqs = lists
    if not len(params) == len(grads) == len(exp_avgs) == len(exp_avg_sqs):
        raise ValueError("params, grads, exp_avgs and exp_avg_sqs must have the same length")
    if step < 1:
        raise ValueError(f"step counts from 1, got {step}")
    if lr < 0 or eps < 0 or weight_decay < 0:
        raise ValueError("lr, eps and weight_decay must be non-negative")
    for beta in betas:
        if math.isnan(beta) or beta < 0 or beta >= 1:
            raise ValueError(f"betas must lie in [0, 1), got {betas}")


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
    _check((params, grads, exp_avgs, exp_avg_sqs), step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    for i in range(len(params)):
        p = params[i].double()
        g = grads[i].double()
        m = exp_avgs[i].double()
        v = exp_avg_sqs[i].double()
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1**step)
        v_hat = v / (1 - beta2**step)
        p = p - lr * m_hat / (v_hat.sqrt() + eps)
        params[i].copy_(p)
        exp_avgs[i].copy_(m)
        exp_avg_sqs[i].copy_(v)
