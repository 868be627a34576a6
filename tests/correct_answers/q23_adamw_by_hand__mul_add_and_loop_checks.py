"""Correct: an update written out with mul_/add_/addcmul_, the bias-corrected sqrt(v) by one
division, arguments checked in loops."""

import math

import torch


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
    if len({len(params), len(grads), len(exp_avgs), len(exp_avg_sqs)}) != 1:
        raise ValueError("the four lists must have one length")
    if step < 1:
        raise ValueError("step counts from 1")
    for name, value in (("lr", lr), ("eps", eps), ("weight_decay", weight_decay)):
        if value < 0:
            raise ValueError(f"{name} must not be negative")
    b1, b2 = betas
    for beta in (b1, b2):
        if not (beta >= 0 and beta < 1):
            raise ValueError("betas must lie in [0, 1)")
    c1, c2 = 1 - b1**step, 1 - b2**step
    with torch.no_grad():
        for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
            if decoupled:
                p.mul_(1 - lr * weight_decay)
            elif weight_decay != 0:
                g = g + weight_decay * p
            m.mul_(b1).add_(g, alpha=1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = v.sqrt().div_(math.sqrt(c2)).add_(eps)
            p.addcdiv_(m, denom, value=-(lr / c1))
