"""Wrong: runs torch.autograd.backward, saved under another name at import, into a fresh leaf."""

import torch

from solutions.q06_gradients import (  # the rest as in the reference
    backward_each,
    grads_per_loss,
)

run_backward = torch.autograd.backward


def _scalar_at(f, x):
    point = x.detach().requires_grad_(True)
    out = f(point)
    if not isinstance(out, torch.Tensor) or out.dim() != 0:
        raise ValueError("f must return a 0-dim tensor")
    return point, out


def grad_of(f, x):
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        # inputs=[point]: only the fresh leaf's .grad is written, nothing the caller sees.
        run_backward(out, inputs=[point])
    return torch.zeros_like(x) if point.grad is None else point.grad.detach()


def hessian_vector_product(f, x, v):
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        (grad,) = torch.autograd.grad(out, point, create_graph=True)
        directional = (grad * v).sum()
        if not directional.requires_grad:
            return torch.zeros_like(x)
        run_backward(directional, inputs=[point])
    return torch.zeros_like(x) if point.grad is None else point.grad.detach()
