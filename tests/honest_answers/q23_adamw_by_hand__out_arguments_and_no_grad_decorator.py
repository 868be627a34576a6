"""Every update written with out= arguments into the state's own tensors, under a
torch.no_grad() decorator, the formula in the docstring's order; zip(strict=True)."""

from collections.abc import Sequence

import torch


def _validate(
    lengths: set[int], step: int, lr: float, betas: tuple[float, float], eps: float, wd: float
) -> None:
    if len(lengths) > 1:
        raise ValueError(f"params, grads, exp_avgs and exp_avg_sqs differ in length: {lengths}")
    if step < 1:
        raise ValueError(f"step counts from 1, got {step}")
    for name, value in (("lr", lr), ("eps", eps), ("weight_decay", wd)):
        if value < 0:
            raise ValueError(f"{name} must not be negative, got {value}")
    for index, beta in enumerate(betas, start=1):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"beta{index} must lie in [0, 1), got {beta}")


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
    """One AdamW (or Adam with L2) step, in place."""
    lengths = {len(params), len(grads), len(exp_avgs), len(exp_avg_sqs)}
    _validate(lengths, step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    correction1 = 1.0 - beta1**step
    correction2 = 1.0 - beta2**step
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs, strict=True):
        if decoupled:
            torch.mul(p, 1.0 - lr * weight_decay, out=p)
        else:
            g = torch.add(g, p, alpha=weight_decay)
        torch.add(torch.mul(m, beta1), g, alpha=1.0 - beta1, out=m)
        # addcmul forms (1 - beta2) g * g in float32 for 16-bit tensors, as torch.optim does:
        # g * g alone overflows float16 above 256, where (1 - beta2) g * g still fits.
        torch.addcmul(torch.mul(v, beta2), g, g, value=1.0 - beta2, out=v)
        denominator = torch.sqrt(torch.div(v, correction2)).add_(eps)
        update = torch.div(torch.div(m, correction1), denominator).mul_(lr)
        torch.sub(p, update, out=p)
