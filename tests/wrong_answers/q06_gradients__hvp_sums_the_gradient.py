"""Wrong: differentiates grad.sum() instead of (grad * v).sum(), giving H @ ones times v."""

import torch

from solutions.q06_gradients import (  # the rest as in the reference
    backward_each,
    grad_of,
    grads_per_loss,
)


def hessian_vector_product(f, x, v):
    with torch.enable_grad():
        point = x.detach().requires_grad_(True)
        out = f(point)
        if out.dim() != 0:
            raise ValueError("f must return a 0-dim tensor")
        (grad,) = torch.autograd.grad(out, point, create_graph=True)
        if not grad.requires_grad:
            return torch.zeros_like(x)
        (hvp,) = torch.autograd.grad(grad.sum(), point, materialize_grads=True)
    return hvp * v
