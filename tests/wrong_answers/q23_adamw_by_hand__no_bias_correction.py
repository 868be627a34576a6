"""Wrong: steps along m / (sqrt(v) + eps) without bias correction, so the first steps are
far too small (m and v start at 0)."""

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
    if not len(params) == len(grads) == len(exp_avgs) == len(exp_avg_sqs) or step < 1:
        raise ValueError("lists of equal length and step >= 1 expected")
    if lr < 0 or eps < 0 or weight_decay < 0 or not all(0 <= b < 1 for b in betas):
        raise ValueError("invalid hyperparameter")
    beta1, beta2 = betas
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs, strict=True):
        if decoupled:
            p.mul_(1 - lr * weight_decay)
        else:
            g = g.add(p, alpha=weight_decay)
        m.lerp_(g, 1 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        p.addcdiv_(m, v.sqrt().add_(eps), value=-lr)
