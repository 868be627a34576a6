"""torch.autograd.backward with inputs=(w, b), so only w and b get .grad; a while loop counting
steps against the budget; w and b made by torch.zeros(()) and updated in place under no_grad."""

import torch


def _validate(x: torch.Tensor, y: torch.Tensor) -> None:
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got shape {tuple(x.shape)}")
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {tuple(y.shape)}")
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same length, got {len(x)} and {len(y)}")


def _start(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return (
        torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True),
        torch.zeros((), dtype=x.dtype, device=x.device, requires_grad=True),
    )


def _loss(w: torch.Tensor, b: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return ((w * x + b - y) ** 2).mean()


def _step(w: torch.Tensor, b: torch.Tensor, loss: torch.Tensor, lr: float) -> None:
    # inputs=: gradients for w and b only, never into x's or y's history
    torch.autograd.backward(loss, inputs=(w, b))
    with torch.no_grad():
        for param in (w, b):
            assert param.grad is not None
            param.sub_(lr * param.grad)
            param.grad = None


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    _validate(x, y)
    w, b = _start(x)
    for _ in range(steps):
        _step(w, b, _loss(w, b, x, y), lr)
    return w.detach(), b.detach()


def fit_until(
    x: torch.Tensor, y: torch.Tensor, tol: float, max_steps: int = 1000, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor, int]:
    _validate(x, y)
    w, b = _start(x)
    steps = 0
    while steps < max_steps:
        loss = _loss(w, b, x, y)
        if loss.item() < tol:
            break
        _step(w, b, loss, lr)
        steps += 1
    return w.detach(), b.detach(), steps
