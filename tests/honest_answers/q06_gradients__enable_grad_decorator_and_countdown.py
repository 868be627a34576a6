"""A functools.wraps decorator that turns grad mode on, materialize_grads for unused points,
and backward passes driven by a countdown of the losses left."""

import functools
from collections.abc import Callable, Sequence
from typing import TypeVar

import torch
from torch import autograd

T = TypeVar("T")


def _recording(func: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(func)
    def wrapper(*args: object, **kwargs: object) -> T:
        with torch.enable_grad():
            return func(*args, **kwargs)

    return wrapper


def _evaluate(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    point = x.detach().requires_grad_(True)
    value = f(point)
    if not isinstance(value, torch.Tensor) or value.dim() != 0:
        raise ValueError("f must return a 0-dim tensor")
    return point, value


def _first_grad(value: torch.Tensor, point: torch.Tensor, *, create_graph: bool) -> torch.Tensor:
    if not value.requires_grad:
        return torch.zeros_like(point)
    (g,) = autograd.grad(value, point, create_graph=create_graph, materialize_grads=True)
    return g


@_recording
def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    point, value = _evaluate(f, x)
    return _first_grad(value, point, create_graph=False).detach()


@_recording
def hessian_vector_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    point, value = _evaluate(f, x)
    g = _first_grad(value, point, create_graph=True)
    if not g.requires_grad:
        return torch.zeros_like(point).detach()
    (hv,) = autograd.grad((g * v).sum(), point, materialize_grads=True)
    return hv.detach()


def backward_each(losses: Sequence[torch.Tensor]) -> None:
    remaining = len(losses)
    for loss in losses:
        remaining -= 1
        loss.backward(retain_graph=remaining > 0)


def grads_per_loss(
    losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor]
) -> list[tuple[torch.Tensor, ...]]:
    params = list(params)
    out: list[tuple[torch.Tensor, ...]] = []
    remaining = len(losses)
    for loss in losses:
        remaining -= 1
        grads = autograd.grad(loss, params, retain_graph=remaining > 0)
        out.append(tuple(g.detach() for g in grads))
    return out
