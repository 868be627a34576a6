"""One two-element parameter vector, a generator of descent states shared by both functions."""

import itertools
from collections.abc import Iterator

import torch


def _check(x: torch.Tensor, y: torch.Tensor) -> None:
    if x.dim() != 1 or y.dim() != 1:
        raise ValueError(f"x and y must be 1-D, got {x.dim()}-D and {y.dim()}-D")
    if x.numel() != y.numel():
        raise ValueError(f"x and y differ in length: {x.numel()} vs {y.numel()}")


def _descent(
    x: torch.Tensor, y: torch.Tensor, lr: float
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Yields (theta, loss) at each point, theta = [w, b] detached; steps when resumed."""
    theta = torch.zeros(2, dtype=x.dtype, device=x.device)
    while True:
        theta.requires_grad_(True)
        w, b = theta.unbind()
        loss = ((w * x + b - y) ** 2).mean()
        yield theta.detach(), loss.detach()
        (grad,) = torch.autograd.grad(loss, theta)
        del loss  # nothing of this step's graph outlives it
        theta = theta.detach() - lr * grad  # a fresh leaf, off the graph


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    _check(x, y)
    states = _descent(x, y, lr)
    for _ in range(steps):
        next(states)
    theta, _loss = next(states)
    states.close()
    return theta[0], theta[1]


def fit_until(
    x: torch.Tensor, y: torch.Tensor, tol: float, max_steps: int = 1000, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor, int]:
    _check(x, y)
    states = _descent(x, y, lr)
    for taken in itertools.count():
        theta, loss = next(states)
        if taken == max_steps or loss.item() < tol:
            break
    states.close()
    return theta[0], theta[1], taken
