"""Kata 1: fit a line with autograd.

PyTorch is NumPy-like tensors that can live on a GPU plus autograd: record the operations
on tensors that require grad, then call `.backward()` to get gradients. With those two
pieces, plain gradient descent is a handful of lines, and the same lines run on any device.

Task: fit y ≈ w * x + b by gradient descent on the mean squared error, using autograd for
the gradients and updating the parameters yourself (no torch.optim).
"""

import torch


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    """Fit `y ≈ w * x + b` with `steps` steps of plain gradient descent.

    - x, y: 1-D floating tensors of the same length N >= 1, on the same device.
    - Start from w = 0 and b = 0. Each step computes the loss
      `((w * x + b - y) ** 2).mean()`, its gradients with autograd, and updates
      `w -= lr * dL/dw`, `b -= lr * dL/db`. `steps=0` returns the starting point.
    - Returns (w, b): 0-dim tensors with x's dtype, on x's device, detached from any
      graph (no grad_fn, requires_grad False).
    - x and y are data, not parameters: their values, requires_grad flags and .grad stay
      as they were, also when the caller's x or y requires grad (differentiate with
      respect to w and b only).
    - Raises ValueError if x or y is not 1-D or their lengths differ, before any step
      (so also with steps=0).

    Rules: no torch.optim; use autograd (`backward()` or `torch.autograd.grad`).

    >>> x = torch.tensor([0.0, 1.0, 2.0])
    >>> w, b = fit_line(x, 2 * x + 1, steps=2000, lr=0.1)
    >>> round(w.item(), 3), round(b.item(), 3)
    (2.0, 1.0)
    """
    # TODO: implement gradient descent as the docstring describes.
    raise NotImplementedError
