"""Correct: descends in float64 and rounds w and b once to x's dtype."""

import torch


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    if x.dim() != 1 or y.dim() != 1 or x.shape != y.shape:
        raise ValueError(
            f"x and y must be 1-D of equal length, got {tuple(x.shape)} and {tuple(y.shape)}"
        )
    dtype = x.dtype
    x, y = x.double(), y.double()  # compute in float64, round once at the end
    # Parameters are created where the data is, in its dtype, so this runs on any device.
    w = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    b = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    for _ in range(steps):
        loss = ((w * x + b - y) ** 2).mean()
        # autograd.grad returns fresh gradients, so nothing accumulates between steps.
        grad_w, grad_b = torch.autograd.grad(loss, (w, b))
        with torch.no_grad():  # the update is not part of the model: keep it off the graph
            w -= lr * grad_w
            b -= lr * grad_b
    return w.detach().to(dtype), b.detach().to(dtype)


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
