"""Wrong: builds the full Hessian row by row, then multiplies it by v."""

import torch

from solutions.q06_gradients import (  # the rest as in the reference
    _gradient,
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
        return _gradient(out, point, create_graph=False)


def hessian_vector_product(f, x, v):
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        grad = _gradient(out, point, create_graph=True).reshape(-1)
        if grad.numel() == 0:
            return torch.zeros_like(x)
        rows = []
        for g in grad:
            if not g.requires_grad:
                rows.append(torch.zeros_like(grad))
                continue
            (row,) = torch.autograd.grad(g, point, retain_graph=True, materialize_grads=True)
            rows.append(row.reshape(-1))
        hessian = torch.stack(rows)
        return (hessian @ v.reshape(-1)).reshape(x.shape)
