"""Wrong: calls torch.autograd.graph._engine_run_backward, the engine behind .backward()."""

import torch
from torch.autograd.graph import _engine_run_backward

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


def _backward(out, point):
    # What .backward() runs: accumulates into point.grad.
    _engine_run_backward((out,), (torch.ones_like(out),), False, False, (point,), True, True)
    return torch.zeros_like(point) if point.grad is None else point.grad


def grad_of(f, x):
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        grad = _backward(out, point)
    return grad.detach()


def hessian_vector_product(f, x, v):
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        (grad,) = torch.autograd.grad(out, point, create_graph=True)
        directional = (grad * v).sum()
        if not directional.requires_grad:
            return torch.zeros_like(x)
        return _backward(directional, point).detach()
