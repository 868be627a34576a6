"""Multi-tensor by hand with public ops: the tensors of each (device, dtype) are flattened into
one buffer per role with torch.cat, stepped together with in-place ops (addcmul_ for g * g),
then split and copied back into the caller's tensors."""

from collections import defaultdict
from collections.abc import Sequence

import torch


def _flat(tensors: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat([t.reshape(-1) for t in tensors])


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
    """One AdamW (or Adam with L2) step over all tensors, a (device, dtype) group at a time."""
    if not len(params) == len(grads) == len(exp_avgs) == len(exp_avg_sqs):
        raise ValueError("params, grads, exp_avgs and exp_avg_sqs must be equally long")
    if step < 1:
        raise ValueError("step must be at least 1")
    if min(lr, eps, weight_decay) < 0:
        raise ValueError("lr, eps and weight_decay must be non-negative")
    beta1, beta2 = betas
    if not (0 <= beta1 < 1 and 0 <= beta2 < 1):
        raise ValueError(f"betas must lie in [0, 1), got {betas}")

    groups: defaultdict[tuple[torch.device, torch.dtype], list[int]] = defaultdict(list)
    for index, p in enumerate(params):
        groups[p.device, p.dtype].append(index)

    correction1 = 1 - beta1**step
    correction2 = 1 - beta2**step
    for indices in groups.values():
        ps = [params[i] for i in indices]
        ms = [exp_avgs[i] for i in indices]
        vs = [exp_avg_sqs[i] for i in indices]
        p_flat, m_flat, v_flat = _flat(ps), _flat(ms), _flat(vs)
        g_flat = _flat([grads[i] for i in indices])
        if decoupled:
            p_flat.mul_(1 - lr * weight_decay)
        else:
            g_flat.add_(p_flat, alpha=weight_decay)  # a copy from cat: grads untouched
        m_flat.mul_(beta1).add_(g_flat, alpha=1 - beta1)
        v_flat.mul_(beta2).addcmul_(g_flat, g_flat, value=1 - beta2)
        denominator = (v_flat / correction2).sqrt_().add_(eps)
        p_flat.sub_((m_flat / correction1).div_(denominator).mul_(lr))
        sizes = [t.numel() for t in ps]
        for targets, flat in ((ps, p_flat), (ms, m_flat), (vs, v_flat)):
            for target, chunk in zip(targets, flat.split(sizes), strict=True):
                target.copy_(chunk.view_as(target))
