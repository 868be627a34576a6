"""Each update computed out of place as the formula reads, written back with copy_."""

import math
from collections.abc import Sequence

import torch


def _validate(
    lengths: set[int],
    step: int,
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
) -> None:
    if len(lengths) != 1:
        raise ValueError("params, grads, exp_avgs and exp_avg_sqs must have the same length")
    if step < 1:
        raise ValueError(f"step counts from 1, got {step}")
    for name, value in {"lr": lr, "eps": eps, "weight_decay": weight_decay}.items():
        if value < 0:
            raise ValueError(f"{name} must not be negative, got {value}")
    if not all(0.0 <= beta < 1.0 for beta in betas):  # False for NaN
        raise ValueError(f"betas must be in [0, 1), got {betas}")


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
    _validate(lengths, step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    correction1 = 1 - beta1**step
    correction2_sqrt = math.sqrt(1 - beta2**step)
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs, strict=True):
        if decoupled:
            p.copy_(p * (1 - lr * weight_decay))
        else:
            g = g + weight_decay * p  # a new tensor: the caller's gradient stays as it is
        m.copy_(beta1 * m + (1 - beta1) * g)
        v.copy_(beta2 * v + (1 - beta2) * g * g)
        denom = v.sqrt() / correction2_sqrt + eps
        p.copy_(p - (lr / correction1) * m / denom)
