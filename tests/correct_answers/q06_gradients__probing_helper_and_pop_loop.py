"""Correct: gradients without side effects, built around one probing helper."""

from collections.abc import Callable, Sequence

import torch


def _probe(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor):
    """A fresh leaf standing for x, and f evaluated at it with grad mode on."""
    leaf = x.detach().requires_grad_(True)
    with torch.enable_grad():
        out = f(leaf)
    if not isinstance(out, torch.Tensor) or out.dim() != 0:
        raise ValueError(
            f"f must return a 0-dim tensor, got {type(out).__name__}"
            + (f" of shape {tuple(out.shape)}" if isinstance(out, torch.Tensor) else "")
        )
    return leaf, out


def _grad_or_zeros(out: torch.Tensor, leaf: torch.Tensor, *, keep: bool) -> torch.Tensor:
    """d out / d leaf; zeros when out does not reach leaf. keep: record the pass itself."""
    if not out.requires_grad:
        return torch.zeros_like(leaf)
    with torch.enable_grad():
        (g,) = torch.autograd.grad(out, (leaf,), create_graph=keep, allow_unused=True)
    return torch.zeros_like(leaf) if g is None else g


def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    leaf, out = _probe(f, x)
    return _grad_or_zeros(out, leaf, keep=False).detach()


def hessian_vector_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    leaf, out = _probe(f, x)
    g = _grad_or_zeros(out, leaf, keep=True)
    with torch.enable_grad():
        inner = torch.dot(g.reshape(-1), v.detach().reshape(-1).to(g.dtype))
    return _grad_or_zeros(inner, leaf, keep=False).detach()


def backward_each(losses: Sequence[torch.Tensor]) -> None:
    pending = list(losses)
    while pending:
        loss = pending.pop(0)
        torch.autograd.backward(loss, retain_graph=bool(pending))


def grads_per_loss(
    losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor]
) -> list[tuple[torch.Tensor, ...]]:
    params = tuple(params)
    n = len(losses)
    return [
        tuple(g.detach() for g in torch.autograd.grad(loss, params, retain_graph=i < n - 1))
        for i, loss in enumerate(losses)
    ]
