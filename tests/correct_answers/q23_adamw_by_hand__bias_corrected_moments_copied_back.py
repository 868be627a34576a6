"""Correct: bias-corrected moments computed out of place, the new values copied back."""

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
    if len({len(params), len(grads), len(exp_avgs), len(exp_avg_sqs)}) != 1:
        raise ValueError("the four lists must have the same length")
    beta1, beta2 = betas
    checks = [step >= 1, lr >= 0, eps >= 0, weight_decay >= 0]
    checks += [0.0 <= beta < 1.0 for beta in (beta1, beta2)]
    if not all(checks):
        raise ValueError("invalid step, lr, eps, weight_decay or betas")
    with torch.no_grad():
        for i, p in enumerate(params):
            g, m, v = grads[i], exp_avgs[i], exp_avg_sqs[i]
            if decoupled:
                p.copy_(p * (1 - lr * weight_decay))
            else:
                g = g + weight_decay * p
            m.copy_(beta1 * m + (1 - beta1) * g)
            v.copy_(beta2 * v + (1 - beta2) * g * g)
            m_hat = m / (1 - beta1**step)
            v_hat = v / (1 - beta2**step)
            p.copy_(p - lr * m_hat / (v_hat.sqrt() + eps))
