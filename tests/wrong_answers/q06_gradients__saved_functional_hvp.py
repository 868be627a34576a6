"""Wrong: computes the product with torch.autograd.functional.hvp, imported under its own name."""

import torch
from torch.autograd.functional import hvp

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
        _scalar_at(f, x)
        _, product = hvp(f, x.detach(), v)
    return product.detach()
