"""Wrong: always rescales to max_norm, so small gradients are scaled up (no clamp at 1)."""

import torch

from solutions.q30_grad_clipping import layer_grad_norms  # the rest as in the reference


@torch.no_grad()
def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norms = torch.stack([torch.linalg.vector_norm(g, norm_type) for g in grads])
    total_norm = torch.linalg.vector_norm(norms, norm_type)
    if error_if_nonfinite and not torch.isfinite(total_norm):
        raise RuntimeError("non-finite total norm")
    for g in grads:
        g.mul_(max_norm / (total_norm + 1e-6))
    return total_norm
