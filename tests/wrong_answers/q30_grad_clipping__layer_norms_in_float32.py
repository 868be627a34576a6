"""Wrong: builds each layer's norm as a new tensor from a Python float, which is float32
whatever the gradients' dtype."""

import math

import torch

from solutions.q30_grad_clipping import clip_grad_norm


def layer_grad_norms(model):
    norms = {}
    for name, module in model.named_modules():
        grads = [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
        if grads:
            squares = sum(g.pow(2).sum().item() for g in grads)
            norms[name] = torch.tensor(math.sqrt(squares), device=grads[0].device)
    return norms
