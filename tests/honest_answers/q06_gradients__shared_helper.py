"""One private helper that both functions share, a detached clone as the point, allow_unused."""

from collections.abc import Callable

import torch


def _scalar(f: Callable[[torch.Tensor], torch.Tensor], point: torch.Tensor) -> torch.Tensor:
    value = f(point)
    if not (isinstance(value, torch.Tensor) and value.dim() == 0):
        raise ValueError(f"f must return a 0-dim tensor, got {value!r}")
    return value


def _first_grad(
    f: Callable[[torch.Tensor], torch.Tensor], point: torch.Tensor, create_graph: bool
) -> torch.Tensor:
    value = _scalar(f, point)
    if not value.requires_grad:
        return torch.zeros_like(point)
    (grad,) = torch.autograd.grad(value, point, create_graph=create_graph, allow_unused=True)
    return torch.zeros_like(point) if grad is None else grad


def grad_of(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    with torch.enable_grad():
        point = x.detach().clone().requires_grad_(True)
        return _first_grad(f, point, create_graph=False).detach()


def hessian_vector_product(
    f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, v: torch.Tensor
) -> torch.Tensor:
    with torch.enable_grad():
        point = x.detach().clone().requires_grad_(True)
        grad = _first_grad(f, point, create_graph=True)
        if not grad.requires_grad:
            return torch.zeros_like(point).detach()
        (hv,) = torch.autograd.grad((grad * v).sum(), point, allow_unused=True)
    return torch.zeros_like(x).detach() if hv is None else hv.detach()
