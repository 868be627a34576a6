"""Wrong: forgets torch.enable_grad(), so under torch.no_grad() nothing is recorded."""

import torch

from solutions.q06_gradients import (  # the rest as in the reference
    backward_each,
    grads_per_loss,
)


def _scalar_at(f, x):
    point = x.detach().requires_grad_(True)
    out = f(point)
    if out.dim() != 0:
        raise ValueError("f must return a 0-dim tensor")
    return point, out


def grad_of(f, x):
    point, out = _scalar_at(f, x)
    (grad,) = torch.autograd.grad(out, point)
    return grad


def hessian_vector_product(f, x, v):
    point, out = _scalar_at(f, x)
    (grad,) = torch.autograd.grad(out, point, create_graph=True)
    directional = (grad * v).sum()
    if not directional.requires_grad:
        return torch.zeros_like(x)
    (hvp,) = torch.autograd.grad(directional, point, materialize_grads=True)
    return hvp
