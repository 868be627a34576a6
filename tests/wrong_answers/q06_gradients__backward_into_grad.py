"""Wrong: calls f(x).backward() and returns x.grad, so gradients land in .grad."""

import torch

from solutions.q06_gradients import (  # the rest as in the reference
    backward_each,
    grads_per_loss,
)


def _point(x):
    return x if x.requires_grad else x.detach().requires_grad_(True)


def grad_of(f, x):
    point = _point(x)
    with torch.enable_grad():
        out = f(point)
        if out.dim() != 0:
            raise ValueError("f must return a 0-dim tensor")
        point.grad = None
        out.backward()
    return point.grad.detach()


def hessian_vector_product(f, x, v):
    point = _point(x)
    with torch.enable_grad():
        out = f(point)
        if out.dim() != 0:
            raise ValueError("f must return a 0-dim tensor")
        (grad,) = torch.autograd.grad(out, point, create_graph=True)
        directional = (grad * v).sum()
        if not directional.requires_grad:
            return torch.zeros_like(x)
        point.grad = None
        directional.backward()
    return point.grad.detach()
