"""Kata 1: fit a line with autograd.

PyTorch is NumPy-like tensors that can live on a GPU plus autograd: record the operations
on tensors that require grad, then call `.backward()` to get gradients. With those two
pieces, plain gradient descent is a handful of lines, and the same lines run on any device.

The graph is defined by running: each operation is recorded as your Python code executes it
(eager execution), and a new graph is built on every step. So ordinary Python decides what
runs, including control flow that depends on the data itself (a `while` loop on the loss's
value, an `if` on a tensor's contents), and a debugger or a print stops on any line. A
framework that compiles a static graph first needs its own graph-level loop and condition
ops for that. And code that creates its tensors where its inputs are (`device=x.device`)
runs unchanged on the CPU or any accelerator.

Task: fit y ≈ w * x + b by gradient descent on the mean squared error, using autograd for
the gradients and updating the parameters yourself (no torch.optim): for a fixed number of
steps, then until the loss is small enough, however many steps that takes.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

import torch


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    """Fit `y ≈ w * x + b` with `steps` steps of plain gradient descent.

    - x, y: 1-D floating tensors of the same length N >= 1 (a single point too), on the
      same device; their dtypes may differ (w and b take x's). Rule: the result's dtype;
      hint: the steps compute in whatever precision your w, b, x and y give them (w and b
      in x's dtype from the start is the plain way).
    - Start from w = 0 and b = 0. Each step computes the loss
      `((w * x + b - y) ** 2).mean()`, its gradients with autograd, and updates
      `w -= lr * dL/dw`, `b -= lr * dL/db`. `steps=0` returns the starting point.
    - Each step runs on x's device (w and b made there, no tensor on another device).
    - The update is not recorded on the graph (under torch.no_grad(), or on detached
      values): each step's graph is freed once its gradients are taken (no retain_graph,
      no loss tensor kept), so memory does not grow with the number of steps.
    - Returns (w, b): 0-dim tensors with x's dtype, on x's device, detached from any
      graph (no grad_fn, requires_grad False), and ordinary tensors the caller may go on
      training or writing into (no inference tensor made under torch.inference_mode()).
    - x and y are data, not parameters: their values, requires_grad flags and .grad stay
      as they were, also when the caller's x or y requires grad, and the .grad of the
      tensors x and y were computed from too (differentiate with respect to w and b only).
    - Raises ValueError if x or y is not 1-D or their lengths differ, before any step
      (so also with steps=0).

    Rules: no torch.optim; use autograd: each update uses the gradients autograd computes
    for the loss (`backward()`, `torch.autograd.grad` or `torch.func.grad`), not dL/dw
    written by hand, whether used as it is, routed through autograd (a surrogate such as
    `w * dL/dw`) or as the backward of a custom `torch.autograd.Function`.

    >>> x = torch.tensor([0.0, 1.0, 2.0])
    >>> w, b = fit_line(x, 2 * x + 1, steps=2000, lr=0.1)
    >>> round(w.item(), 3), round(b.item(), 3)
    (2.0, 1.0)
    """
    # TODO: implement gradient descent as the docstring describes.
    raise NotImplementedError


def fit_until(
    x: torch.Tensor, y: torch.Tensor, tol: float, max_steps: int = 1000, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Fit `y ≈ w * x + b` by gradient descent until the loss is below `tol`.

    - x, y, the start (w = 0, b = 0), the loss and each step: as for `fit_line`, on the
      device x and y are on, whichever it is.
    - Before each step, compute the loss at the current w and b; if it is below `tol`
      (strictly: a loss equal to tol is not below it), stop. Otherwise take the step. Take
      at most `max_steps` steps (the budget, an int >= 0; 0 takes none): a loss that never
      gets below `tol` stops there. Any float lr is taken as it is (0 or negative too).
    - The comparison is of numbers: the loss's value against tol itself, not tol rounded
      to the loss's dtype. Any float tol is valid: a negative tol is never reached, and a
      NaN loss (a descent that diverged) or a NaN tol is never below, so both run to the
      budget.
    - Returns (w, b, steps): w and b as `fit_line` returns them (0-dim, x's dtype and
      device, detached); steps the number of steps taken, a Python int.
    - x and y are data, left as they were (values, requires_grad, .grad), as for fit_line.
    - Raises ValueError as fit_line does, before any step (so also with max_steps=0), and
      for nothing else.

    Rules: no torch.optim; use autograd. Hint: the number of steps comes from the data, so
    the loop is a `while` (or a `for` with a `break`) whose test reads the loss's value
    (`loss.item()`).

    >>> x = torch.tensor([0.0, 1.0, 2.0])
    >>> w, b, steps = fit_until(x, 2 * x + 1, tol=1e-6, lr=0.1)
    >>> round(w.item(), 2), round(b.item(), 2), 0 < steps < 1000
    (2.0, 1.0, True)
    """
    # TODO: step until the loss is below tol or the budget is spent; count the steps.
    raise NotImplementedError
