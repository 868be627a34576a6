"""Wrong: takes the update from torch.optim's functional SGD (torch.optim.sgd.sgd), not by hand."""

import torch
from torch.optim.sgd import sgd


def fit_line(x, y, steps=100, lr=0.1):
    if x.dim() != 1 or y.dim() != 1 or x.shape != y.shape:
        raise ValueError(f"x and y must be 1-D of equal length, got {x.shape} and {y.shape}")
    w = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    b = torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True)
    for _ in range(steps):
        loss = ((w * x + b - y) ** 2).mean()
        grads = list(torch.autograd.grad(loss, (w, b)))
        with torch.no_grad():
            sgd(
                [w, b],
                grads,
                [None, None],
                weight_decay=0.0,
                momentum=0.0,
                lr=lr,
                dampening=0.0,
                nesterov=False,
                maximize=False,
            )
    return w.detach(), b.detach()
