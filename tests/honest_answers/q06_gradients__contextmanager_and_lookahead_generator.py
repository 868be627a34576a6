"""A context manager that evaluates f once on a fresh leaf with grad on; None gradients
turned into new_zeros; the HVP as the gradient of (g * v).sum(); a lookahead generator
that marks the last loss, whose pass alone does not retain the graph."""

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import torch


@contextmanager
def _evaluated(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    with torch.enable_grad():
        leaf = x.detach()
        leaf.requires_grad = True
        value = f(leaf)
        if not (isinstance(value, torch.Tensor) and value.ndim == 0):
            raise ValueError("f(x) must be a 0-dim tensor")
        yield leaf, value


def _first_grad(out: torch.Tensor, leaf: torch.Tensor, **kwargs: bool) -> torch.Tensor | None:
    if not out.requires_grad:
        return None
    return torch.autograd.grad([out], [leaf], allow_unused=True, **kwargs)[0]


def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    with _evaluated(f, x) as (leaf, value):
        g = _first_grad(value, leaf)
    return x.new_zeros(x.shape) if g is None else g


def hessian_vector_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    with _evaluated(f, x) as (leaf, value):
        g = _first_grad(value, leaf, create_graph=True)
        hv = None if g is None else _first_grad((g * v).sum(), leaf)
    return x.new_zeros(x.shape) if hv is None else hv.detach()


def _marked_last(losses: Sequence[torch.Tensor]) -> Iterator[tuple[torch.Tensor, bool]]:
    """Yields (loss, is_last) by looking one loss ahead."""
    ahead = iter(losses)
    current = next(ahead, None)
    while current is not None:
        following = next(ahead, None)
        yield current, following is None
        current = following


def backward_each(losses: Sequence[torch.Tensor]) -> None:
    for loss, is_last in _marked_last(losses):
        loss.backward(retain_graph=not is_last)


def grads_per_loss(
    losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor]
) -> list[tuple[torch.Tensor, ...]]:
    result: list[tuple[torch.Tensor, ...]] = []
    for loss, is_last in _marked_last(losses):
        grads = torch.autograd.grad(loss, tuple(params), retain_graph=not is_last)
        result.append(tuple(grads))
    return result
