"""Wrong: clips with autograd on, so gradients that carry a graph (from create_graph=True)
get the scaling recorded onto it, and the total norm returned records one too."""

import torch

from solutions.q30_grad_clipping import layer_grad_norms


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    device = grads[0].device
    norms = torch.stack([torch.linalg.vector_norm(g, norm_type).to(device) for g in grads])
    total_norm = torch.linalg.vector_norm(norms, norm_type)
    if error_if_nonfinite and not torch.isfinite(total_norm):
        raise RuntimeError(f"the total norm is {total_norm.item()}")
    clip_coef = torch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(clip_coef.to(g.device))
    return total_norm
