"""A detached alias of x as the leaf, autograd.grad with materialize_grads=True for the
zeros, grad_outputs=v for the vector-Jacobian product, torch.autograd.backward per loss."""

from collections.abc import Callable, Sequence

import torch


def _scalar_of(f: Callable[[torch.Tensor], torch.Tensor], leaf: torch.Tensor) -> torch.Tensor:
    out = f(leaf)
    if not isinstance(out, torch.Tensor) or out.dim() != 0:
        raise ValueError(f"f must return a 0-dim tensor, got {out!r}")
    return out


def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    # the alias shares x's memory but is a leaf of its own: its flag and .grad are not x's
    leaf = x.detach().requires_grad_(True)
    with torch.enable_grad():
        out = _scalar_of(f, leaf)
        if not out.requires_grad:
            return torch.zeros_like(x)
        (grad,) = torch.autograd.grad(out, leaf, allow_unused=True, materialize_grads=True)
    return grad.detach()


def hessian_vector_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    leaf = x.detach().requires_grad_(True)
    with torch.enable_grad():
        out = _scalar_of(f, leaf)
        if not out.requires_grad:
            return torch.zeros_like(x)
        (grad,) = torch.autograd.grad(
            out, leaf, create_graph=True, allow_unused=True, materialize_grads=True
        )
        if not grad.requires_grad:  # the gradient is a constant: f is linear in x
            return torch.zeros_like(x)
        # second pass: the vector-Jacobian product of the gradient with v is H @ v
        (hvp,) = torch.autograd.grad(
            grad, leaf, grad_outputs=v, allow_unused=True, materialize_grads=True
        )
    return hvp.detach()


def backward_each(losses: Sequence[torch.Tensor]) -> None:
    last = len(losses) - 1
    for i, loss in enumerate(losses):
        torch.autograd.backward(loss, retain_graph=i < last)


def grads_per_loss(
    losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor]
) -> list[tuple[torch.Tensor, ...]]:
    last = len(losses) - 1
    return [
        tuple(g.detach() for g in torch.autograd.grad(loss, list(params), retain_graph=i < last))
        for i, loss in enumerate(losses)
    ]
