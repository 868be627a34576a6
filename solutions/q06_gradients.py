"""Kata 6: gradients without side effects (reference answer)."""

from collections.abc import Callable

import torch


def _scalar_at(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor):
    # A fresh leaf that shares x's values: its graph starts here, so the gradient is taken
    # with respect to x itself (not what x was computed from), and x's flags stay as they are.
    point = x.detach().requires_grad_(True)
    out = f(point)
    if not isinstance(out, torch.Tensor) or out.dim() != 0:
        shape = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        raise ValueError(f"f must return a 0-dim tensor, got {shape}")
    return point, out


def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    # enable_grad: the caller may be inside torch.no_grad(), where f would record nothing.
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        # autograd.grad returns the gradient instead of adding it into any .grad.
        (grad,) = torch.autograd.grad(out, point)
    return grad


def hessian_vector_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        # create_graph records the first backward pass, so its result can be differentiated.
        (grad,) = torch.autograd.grad(out, point, create_graph=True)
        directional = (grad * v).sum()
        if not directional.requires_grad:  # the gradient is constant: f is linear in x
            return torch.zeros_like(x)
        (hvp,) = torch.autograd.grad(directional, point, materialize_grads=True)
    return hvp
