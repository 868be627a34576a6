"""Wrong: computes the Hessian row by row (a backward pass per element) without storing it."""

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
        if not isinstance(out, torch.Tensor) or out.dim() != 0:
            raise ValueError("f must return a 0-dim tensor")
        if not out.requires_grad:
            return torch.zeros_like(x)
        (grad,) = torch.autograd.grad(out, point, create_graph=True, materialize_grads=True)
        flat_grad, flat_v = grad.reshape(-1), v.reshape(-1)
        result = torch.zeros_like(flat_v)
        if not flat_grad.requires_grad:  # the gradient is a constant: f is linear in x
            return result.reshape(x.shape)
        for i in range(flat_grad.numel()):
            (row,) = torch.autograd.grad(
                flat_grad[i], point, retain_graph=True, materialize_grads=True
            )
            result = result + row.reshape(-1) * flat_v[i]
        return result.reshape(x.shape).detach()
