"""Wrong: switches on requires_grad of the caller's own x instead of a detached copy."""

import torch

from solutions.q06_gradients import (  # the rest as in the reference
    backward_each,
    grads_per_loss,
)


def grad_of(f, x):
    x.requires_grad_(True)
    with torch.enable_grad():
        out = f(x)
        if out.dim() != 0:
            raise ValueError("f must return a 0-dim tensor")
        (grad,) = torch.autograd.grad(out, x)
    return grad


def hessian_vector_product(f, x, v):
    x.requires_grad_(True)
    with torch.enable_grad():
        out = f(x)
        if out.dim() != 0:
            raise ValueError("f must return a 0-dim tensor")
        (grad,) = torch.autograd.grad(out, x, create_graph=True)
        directional = (grad * v).sum()
        if not directional.requires_grad:
            return torch.zeros_like(x)
        (hvp,) = torch.autograd.grad(directional, x, materialize_grads=True)
    return hvp
