"""Wrong: iterates `parameters` twice; a generator is empty the second time, nothing is clipped."""

import torch

from solutions.q30_grad_clipping import layer_grad_norms  # the rest as in the reference


@torch.no_grad()
def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    norms = [torch.linalg.vector_norm(p.grad, norm_type) for p in parameters if p.grad is not None]
    if not norms:
        return torch.tensor(0.0)
    total_norm = torch.linalg.vector_norm(torch.stack(norms), norm_type)
    if error_if_nonfinite and not torch.isfinite(total_norm):
        raise RuntimeError("non-finite total norm")
    clip_coef = torch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for p in parameters:
        if p.grad is not None:
            p.grad.mul_(clip_coef)
    return total_norm
