"""Wrong: when f does not depend on x, torch.autograd.grad raises instead of the gradient
being zeros (no materialize_grads, no check that f(x) requires grad)."""

import torch

from solutions.q06_gradients import (  # the rest as in the reference
    backward_each,
    grads_per_loss,
)


def _scalar_at(f, x):
    point = x.detach().requires_grad_(True)
    out = f(point)
    if not isinstance(out, torch.Tensor) or out.dim() != 0:
        raise ValueError("f must return a 0-dim tensor")
    return point, out


def grad_of(f, x):
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        (grad,) = torch.autograd.grad(out, point)
    return grad


def hessian_vector_product(f, x, v):
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        (grad,) = torch.autograd.grad(out, point, create_graph=True)
        directional = (grad * v).sum()
        if not directional.requires_grad:
            return torch.zeros_like(x)
        (hvp,) = torch.autograd.grad(directional, point, materialize_grads=True)
    return hvp
