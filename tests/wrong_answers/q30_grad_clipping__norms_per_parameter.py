"""Wrong: layer_grad_norms gives one norm per parameter (keys like '0.weight'), not per layer."""

import torch

from solutions.q30_grad_clipping import clip_grad_norm  # the rest as in the reference


@torch.no_grad()
def layer_grad_norms(model):
    return {
        name: torch.linalg.vector_norm(p.grad)
        for name, p in model.named_parameters()
        if p.grad is not None
    }
