"""Correct: takes the gradients with loss.backward() on x and y detached (only w and b
get a .grad)."""

import torch


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    if x.dim() != 1 or y.dim() != 1 or x.shape != y.shape:
        raise ValueError(
            f"x and y must be 1-D of equal length, got {tuple(x.shape)} and {tuple(y.shape)}"
        )
    # Parameters are created where the data is, in its dtype, so this runs on any device.
    w = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    b = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    xd, yd = x.detach(), y.detach()
    for _ in range(steps):
        loss = ((w * xd + b - yd) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = None
        b.grad = None
    return w.detach(), b.detach()


def fit_until(
    x: torch.Tensor, y: torch.Tensor, tol: float, max_steps: int = 1000, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor, int]:
    fit_line(x, y, steps=0)  # checks x and y, taking no step: one place for the check
    w = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    b = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    steps = 0
    while steps < max_steps:
        loss = ((w * x + b - y) ** 2).mean()
        # Plain Python decides, from the loss's value, whether to go on: the graph is
        # recorded as the code runs, so there is nothing to declare ahead.
        if loss.item() < tol:
            break
        grad_w, grad_b = torch.autograd.grad(loss, (w, b))
        with torch.no_grad():
            w -= lr * grad_w
            b -= lr * grad_b
        steps += 1
    return w.detach(), b.detach(), steps
