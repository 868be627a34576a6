"""Wrong: hessian_vector_product flattens the gradient and v with .view(-1) for a dot
product, which fails for a non-contiguous x."""

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
        product = torch.dot(grad.view(-1), v.view(-1))
        if not product.requires_grad:
            return torch.zeros_like(x)
        (hvp,) = torch.autograd.grad(product, point, materialize_grads=True)
        return hvp
