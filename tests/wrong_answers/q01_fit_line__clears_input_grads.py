"""Wrong: calls loss.backward() on the caller's x and y, then sets their .grad back to
None: a .grad they already held is lost."""

import torch


def fit_line(x, y, steps=100, lr=0.1):
    if x.dim() != 1 or y.dim() != 1 or x.shape != y.shape:
        raise ValueError("x and y must be 1-D of equal length")
    w = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    b = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    for _ in range(steps):
        w.grad = b.grad = None
        ((w * x + b - y) ** 2).mean().backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
    x.grad = y.grad = None  # "clean up" what backward wrote
    return w.detach(), b.detach()
