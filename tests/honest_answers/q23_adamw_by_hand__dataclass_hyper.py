"""A frozen dataclass for the hyper-parameters, out-of-place maths then copy_ into the state."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class _Hyper:
    lr: float
    beta1: float
    beta2: float
    eps: float
    weight_decay: float

    def __post_init__(self) -> None:
        if min(self.lr, self.eps, self.weight_decay) < 0:
            raise ValueError("lr, eps and weight_decay must not be negative")
        if not (0 <= self.beta1 < 1 and 0 <= self.beta2 < 1):
            raise ValueError("betas must lie in [0, 1)")


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
    if len({len(params), len(grads), len(exp_avgs), len(exp_avg_sqs)}) != 1:
        raise ValueError("the four sequences must have one length")
    if step < 1:
        raise ValueError("step starts at 1")
    h = _Hyper(lr, betas[0], betas[1], eps, weight_decay)
    correction1 = 1.0 - h.beta1**step
    correction2 = math.sqrt(1.0 - h.beta2**step)
    with torch.no_grad():
        for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs, strict=True):
            if not decoupled and h.weight_decay:
                g = g + h.weight_decay * p
            m.copy_(h.beta1 * m + (1.0 - h.beta1) * g)
            v.copy_(h.beta2 * v + (1.0 - h.beta2) * g * g)
            update = (m / correction1) / (v.sqrt() / correction2 + h.eps)
            if decoupled:
                p.mul_(1.0 - h.lr * h.weight_decay)
            p.sub_(h.lr * update)
