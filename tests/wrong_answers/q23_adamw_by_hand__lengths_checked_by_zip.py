"""Wrong: relies on zip(strict=True) for the length check, so it raises only after the
first parameters have already been updated."""

import math
from collections.abc import Sequence

import torch


@torch.no_grad()  # an optimizer step is not part of the model: record no graph
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
    if step < 1:
        raise ValueError(f"step counts from 1, got {step}")
    if lr < 0 or eps < 0 or weight_decay < 0:
        raise ValueError(f"lr, eps and weight_decay must be >= 0, got {lr}, {eps}, {weight_decay}")
    beta1, beta2 = betas
    if not (0 <= beta1 < 1 and 0 <= beta2 < 1):
        raise ValueError(f"betas must lie in [0, 1), got {betas}")

    # Both moments start at 0, so early on they underestimate; these factors undo that.
    bias_correction1 = 1 - beta1**step
    bias_correction2_sqrt = math.sqrt(1 - beta2**step)
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs, strict=True):
        if decoupled:
            # AdamW: shrink the weights directly; the adaptive scaling never sees it.
            p.mul_(1 - lr * weight_decay)
        elif weight_decay:
            # Adam + L2: the penalty's gradient joins g (out of place: g is the caller's).
            g = g.add(p, alpha=weight_decay)
        m.lerp_(g, 1 - beta1)  # m = beta1 * m + (1 - beta1) * g
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        # eps is added after bias-correcting sqrt(v), as torch.optim does.
        denom = (v.sqrt() / bias_correction2_sqrt).add_(eps)
        p.addcdiv_(m, denom, value=-lr / bias_correction1)
