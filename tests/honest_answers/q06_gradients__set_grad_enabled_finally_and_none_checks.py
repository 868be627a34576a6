"""Explicit None checks instead of materialize_grads, a try/finally around set_grad_enabled,
torch.autograd.backward per loss, and enumerate against the last index."""

from collections.abc import Callable, Sequence

import torch


def _checked(out: object) -> torch.Tensor:
    if isinstance(out, torch.Tensor) and out.ndim == 0:
        return out
    raise ValueError(f"f must return a 0-dim tensor, got {type(out).__name__}")


def _grad_or_zeros(out: torch.Tensor, leaf: torch.Tensor, create_graph: bool) -> torch.Tensor:
    if out.grad_fn is None and not out.requires_grad:
        return torch.zeros_like(leaf)
    result = torch.autograd.grad([out], [leaf], allow_unused=True, create_graph=create_graph)[0]
    return torch.zeros_like(leaf) if result is None else result


def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    previous = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    try:
        leaf = x.detach().clone().requires_grad_()
        out = _checked(f(leaf))
        return _grad_or_zeros(out, leaf, create_graph=False).detach()
    finally:
        torch.set_grad_enabled(previous)


def hessian_vector_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    previous = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    try:
        leaf = x.detach().clone().requires_grad_()
        out = _checked(f(leaf))
        first = _grad_or_zeros(out, leaf, create_graph=True)
        inner = torch.sum(first * v)
        return _grad_or_zeros(inner, leaf, create_graph=False).detach()
    finally:
        torch.set_grad_enabled(previous)


def backward_each(losses: Sequence[torch.Tensor]) -> None:
    last = len(losses) - 1
    for index, loss in enumerate(losses):
        torch.autograd.backward(loss, retain_graph=index < last)


def grads_per_loss(
    losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor]
) -> list[tuple[torch.Tensor, ...]]:
    last = len(losses) - 1
    result = []
    for index, loss in enumerate(losses):
        grads = torch.autograd.grad(loss, tuple(params), retain_graph=index != last)
        result.append(tuple(grad.detach() for grad in grads))
    return result
