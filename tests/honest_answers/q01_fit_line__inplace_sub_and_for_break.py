"""Leaves made with requires_grad=True, backward() on detached data, in-place sub_ under
no_grad with .grad reset to None, and fit_until as a for loop with a break."""

import torch


def _check(x: torch.Tensor, y: torch.Tensor) -> None:
    if x.ndim != 1:
        raise ValueError("x must be 1-D")
    if y.ndim != 1:
        raise ValueError("y must be 1-D")
    if len(x) != len(y):
        raise ValueError("x and y must have the same length")


def _leaves(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    opts = {"dtype": x.dtype, "device": x.device, "requires_grad": True}
    return torch.tensor(0.0, **opts), torch.tensor(0.0, **opts)


def _descend(w: torch.Tensor, b: torch.Tensor, lr: float) -> None:
    with torch.no_grad():
        w.sub_(lr * w.grad)
        b.sub_(lr * b.grad)
    w.grad = None
    b.grad = None


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    _check(x, y)
    x, y = x.detach(), y.detach()  # data: no gradient flows back to the caller's tensors
    w, b = _leaves(x)
    for _ in range(steps):
        loss = ((w * x + b - y) ** 2).mean()
        loss.backward()
        _descend(w, b, lr)
    return w.detach(), b.detach()


def fit_until(
    x: torch.Tensor, y: torch.Tensor, tol: float, max_steps: int = 1000, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor, int]:
    _check(x, y)
    x, y = x.detach(), y.detach()
    w, b = _leaves(x)
    steps = 0
    for _ in range(max_steps):
        loss = ((w * x + b - y) ** 2).mean()
        if loss.item() < tol:
            break
        loss.backward()
        _descend(w, b, lr)
        steps += 1
    return w.detach(), b.detach(), steps
