"""Wrong: the default learning rate is 0.01 instead of the 0.1 the signature promises."""

import torch


def fit_line(x, y, steps=100, lr=0.01):
    if x.dim() != 1 or y.dim() != 1 or x.shape != y.shape:
        raise ValueError("x and y must be 1-D of equal length")
    w = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    b = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    for _ in range(steps):
        loss = ((w * x + b - y) ** 2).mean()
        grad_w, grad_b = torch.autograd.grad(loss, (w, b))
        with torch.no_grad():
            w -= lr * grad_w
            b -= lr * grad_b
    return w.detach(), b.detach()
