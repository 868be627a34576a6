"""Wrong: checks that f(x) has one element, so a result of shape (1,) passes as a scalar."""

import torch

from solutions.q06_gradients import (  # the rest as in the reference
    _gradient,
    backward_each,
    grads_per_loss,
)


def _scalar_at(f, x):
    point = x.detach().requires_grad_(True)
    out = f(point)
    if not isinstance(out, torch.Tensor) or out.numel() != 1:
        raise ValueError("f must return a scalar")
    return point, out


def grad_of(f, x):
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        return _gradient(out, point, create_graph=False)


def hessian_vector_product(f, x, v):
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        grad = _gradient(out, point, create_graph=True)
        return _gradient((grad * v).sum(), point, create_graph=False)
