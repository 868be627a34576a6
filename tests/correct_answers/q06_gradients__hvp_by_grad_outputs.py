"""Correct: the Hessian-vector product as autograd.grad(grad, x, grad_outputs=v)."""

from collections.abc import Callable, Sequence

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


def _gradient(out: torch.Tensor, point: torch.Tensor, create_graph: bool) -> torch.Tensor:
    if not out.requires_grad:  # f is a constant: nothing to differentiate, the slope is 0
        return torch.zeros_like(point)
    # autograd.grad returns the gradient instead of adding it into any .grad;
    # materialize_grads gives zeros where f does not use the point at all.
    (grad,) = torch.autograd.grad(out, point, create_graph=create_graph, materialize_grads=True)
    return grad


def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    # enable_grad: the caller may be inside torch.no_grad(), where f would record nothing.
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        return _gradient(out, point, create_graph=False)


def hessian_vector_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    with torch.enable_grad():
        point, out = _scalar_at(f, x)
        # create_graph records the first backward pass, so its result can be differentiated.
        grad = _gradient(out, point, create_graph=True)
        # Where the gradient is constant (f linear in x), this gives zeros.
        if not grad.requires_grad:
            return torch.zeros_like(point)
        (hv,) = torch.autograd.grad(grad, point, grad_outputs=v, materialize_grads=True)
        return hv


def backward_each(losses: Sequence[torch.Tensor]) -> None:
    last = len(losses) - 1
    for index, loss in enumerate(losses):
        # Adds into every leaf's .grad; keeps the shared graph for the passes to come.
        loss.backward(retain_graph=index < last)


def grads_per_loss(
    losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor]
) -> list[tuple[torch.Tensor, ...]]:
    last = len(losses) - 1
    # Each pass frees the graph's saved tensors unless told to keep them: keep them for
    # the passes still to come, and let the last one free them.
    return [
        torch.autograd.grad(loss, params, retain_graph=index < last)
        for index, loss in enumerate(losses)
    ]
