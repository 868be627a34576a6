"""Wrong: computes the layer norms with autograd on, so gradients that carry a graph (from
create_graph=True) get norms that record one too."""

import torch

from solutions.q30_grad_clipping import clip_grad_norm


def layer_grad_norms(model):
    norms = {}
    for name, module in model.named_modules():
        grads = [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
        if grads:
            norms[name] = torch.linalg.vector_norm(
                torch.stack([torch.linalg.vector_norm(g) for g in grads])
            )
    return norms
