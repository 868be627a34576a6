"""Wrong: uses (sum |g|^p)^(1/p) for every p, which breaks for the infinity norm."""

import torch

from solutions.q30_grad_clipping import layer_grad_norms  # the rest as in the reference


@torch.no_grad()
def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    total_norm = sum(g.abs().pow(norm_type).sum() for g in grads) ** (1.0 / norm_type)
    if error_if_nonfinite and not torch.isfinite(total_norm):
        raise RuntimeError("non-finite total norm")
    clip_coef = torch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(clip_coef)
    return total_norm
