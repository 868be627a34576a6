"""backward() on detached data, the update through .grad by hand, a walrus, logging."""

import logging

import torch

log = logging.getLogger(__name__)


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    if (dims := (x.ndim, y.ndim)) != (1, 1) or len(x) != len(y):
        raise ValueError(f"need two 1-D tensors of one length, got dims {dims}")
    x, y = x.detach(), y.detach()
    w, b = (torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True) for _ in "wb")
    for step in range(steps):
        loss = torch.nn.functional.mse_loss(w * x + b, y)
        loss.backward()
        with torch.no_grad():
            for p in (w, b):
                p.sub_(lr * p.grad)
                p.grad = None
        log.debug("step %d: loss %.4f", step, loss.item())
    return w.detach(), b.detach()
