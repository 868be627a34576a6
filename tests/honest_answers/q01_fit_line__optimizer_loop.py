"""backward() on detached data, the update through .grad by hand, a walrus, logging, a for-else
for the step budget."""

import logging

import torch

log = logging.getLogger(__name__)


def _data(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """x and y checked, then cut from any graph: backward() reaches w and b only."""
    if (dims := (x.ndim, y.ndim)) != (1, 1) or len(x) != len(y):
        raise ValueError(f"need two 1-D tensors of one length, got dims {dims}")
    return x.detach(), y.detach()


def _step(w: torch.Tensor, b: torch.Tensor, loss: torch.Tensor, lr: float) -> None:
    loss.backward()
    with torch.no_grad():
        for p in (w, b):
            p.sub_(lr * p.grad)
            p.grad = None


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    x, y = _data(x, y)
    w, b = (torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True) for _ in "wb")
    for step in range(steps):
        loss = torch.nn.functional.mse_loss(w * x + b, y)
        _step(w, b, loss, lr)
        log.debug("step %d: loss %.4f", step, loss.item())
    return w.detach(), b.detach()


def fit_until(
    x: torch.Tensor, y: torch.Tensor, tol: float, max_steps: int = 1000, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor, int]:
    x, y = _data(x, y)
    w, b = (torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True) for _ in "wb")
    # A for with a break: the loss before each step decides whether it is taken.
    for taken in range(max_steps):
        loss = torch.nn.functional.mse_loss(w * x + b, y)
        if (value := loss.item()) < tol:
            break
        _step(w, b, loss, lr)
        log.debug("step %d: loss %.4f", taken, value)
    else:
        taken = max_steps  # the budget is spent (range(0) binds nothing)
    return w.detach(), b.detach(), taken
