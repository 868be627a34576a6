"""A small dataclass holding w and b, torch.autograd.grad for the gradients, fresh tensors
each step (no in-place update), and fit_line written on top of one shared step function."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class _Line:
    w: torch.Tensor
    b: torch.Tensor

    @classmethod
    def at_origin(cls, like: torch.Tensor) -> _Line:
        zero = torch.zeros((), dtype=like.dtype, device=like.device)
        return cls(zero.clone(), zero.clone())

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return ((self.w * x + self.b - y) ** 2).mean()


def _validate(x: torch.Tensor, y: torch.Tensor) -> None:
    if x.dim() != 1 or y.dim() != 1:
        raise ValueError(f"x and y must be 1-D, got {x.dim()}-D and {y.dim()}-D")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y differ in length: {x.shape[0]} != {y.shape[0]}")


def _step(line: _Line, x: torch.Tensor, y: torch.Tensor, lr: float) -> tuple[_Line, float]:
    """One gradient-descent step; returns the new line and the loss before the step."""
    w = line.w.detach().requires_grad_()
    b = line.b.detach().requires_grad_()
    loss = _Line(w, b).loss(x, y)
    grad_w, grad_b = torch.autograd.grad(loss, (w, b))
    return _Line((w - lr * grad_w).detach(), (b - lr * grad_b).detach()), loss.item()


def fit_line(
    x: torch.Tensor, y: torch.Tensor, steps: int = 100, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor]:
    _validate(x, y)
    data_x, data_y = x.detach(), y.detach()
    line = _Line.at_origin(x)
    with torch.enable_grad():
        for _ in range(steps):
            line, _ = _step(line, data_x, data_y, lr)
    return line.w, line.b


def fit_until(
    x: torch.Tensor, y: torch.Tensor, tol: float, max_steps: int = 1000, lr: float = 0.1
) -> tuple[torch.Tensor, torch.Tensor, int]:
    _validate(x, y)
    data_x, data_y = x.detach(), y.detach()
    line = _Line.at_origin(x)
    taken = 0
    with torch.enable_grad():
        while taken < max_steps:
            candidate, loss_before = _step(line, data_x, data_y, lr)
            if loss_before < tol:
                break
            line = candidate
            taken += 1
    return line.w, line.b, taken
