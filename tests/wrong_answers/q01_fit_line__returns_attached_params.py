"""Wrong: returns the trainable parameters themselves, still requiring grad."""

import torch


def fit_line(x, y, steps=100, lr=0.1):
    if x.dim() != 1 or y.dim() != 1 or x.shape != y.shape:
        raise ValueError("x and y must be 1-D of equal length")
    w = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    b = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    for _ in range(steps):
        grad_w, grad_b = torch.autograd.grad(((w * x + b - y) ** 2).mean(), (w, b))
        with torch.no_grad():
            w -= lr * grad_w
            b -= lr * grad_b
    return w, b
