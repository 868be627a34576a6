"""Wrong: compares the lengths of params, grads and exp_avg_sqs but forgets exp_avgs, and
zips the lists without strict=True, so a short exp_avgs list leaves parameters unupdated."""

import math

import torch


@torch.no_grad()
def adamw_step_(
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    step,
    *,
    lr,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=1e-2,
    decoupled=True,
):
    if not len(params) == len(grads) == len(exp_avg_sqs):
        raise ValueError("params, grads and exp_avg_sqs must have the same length")
    if step < 1:
        raise ValueError("step counts from 1")
    if lr < 0 or eps < 0 or weight_decay < 0:
        raise ValueError("lr, eps and weight_decay must be >= 0")
    beta1, beta2 = betas
    if not (0 <= beta1 < 1 and 0 <= beta2 < 1):
        raise ValueError("betas must lie in [0, 1)")
    bias_correction1 = 1 - beta1**step
    bias_correction2_sqrt = math.sqrt(1 - beta2**step)
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):  # noqa: B905
        if decoupled:
            p.mul_(1 - lr * weight_decay)
        elif weight_decay:
            g = g.add(p, alpha=weight_decay)
        m.lerp_(g, 1 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = (v.sqrt() / bias_correction2_sqrt).add_(eps)
        p.addcdiv_(m, denom, value=-lr / bias_correction1)
