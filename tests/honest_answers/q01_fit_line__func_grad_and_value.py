"""torch.func.grad_and_value over a pure loss of (w, b); one generator of steps for both fits."""

from collections.abc import Iterator

import torch
from torch.func import grad_and_value


def _check(x: torch.Tensor, y: torch.Tensor) -> None:
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"x and y must be 1-D, got shapes {tuple(x.shape)} and {tuple(y.shape)}")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")


def _descent(
    x: torch.Tensor, y: torch.Tensor, lr: float
) -> Iterator[tuple[torch.Tensor, torch.Tensor, float]]:
    """Yield (w, b, loss at w, b) forever, stepping after each yield."""
    # x and y are data: work on detached aliases so nothing reaches the caller's graph.
    x, y = x.detach(), y.detach()

    def loss_fn(params: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        w, b = params
        return ((w * x + b - y) ** 2).mean()

    step = grad_and_value(loss_fn)
    params = (
        torch.zeros((), dtype=x.dtype, device=x.device),
        torch.zeros((), dtype=x.dtype, device=x.device),
    )
    while True:
        (gw, gb), loss = step(params)
        yield params[0], params[1], loss.item()
        params = (params[0] - lr * gw, params[1] - lr * gb)


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    _check(x, y)
    for taken, (w, b, _) in enumerate(_descent(x, y, lr)):
        if taken == steps:
            return w.detach(), b.detach()
    raise AssertionError("unreachable")


def fit_until(
    x: torch.Tensor, y: torch.Tensor, tol: float, max_steps: int = 1000, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor, int]:
    _check(x, y)
    for taken, (w, b, loss) in enumerate(_descent(x, y, lr)):
        if loss < tol or taken == max_steps:
            return w.detach(), b.detach(), taken
    raise AssertionError("unreachable")
