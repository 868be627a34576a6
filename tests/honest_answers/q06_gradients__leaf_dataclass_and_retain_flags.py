"""A frozen dataclass holds the leaf and f's value; retain flags zipped with the losses."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

Scalar = Callable[[torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class _Evaluated:
    """f evaluated once at a fresh leaf that aliases x's values (x itself is never touched)."""

    leaf: torch.Tensor
    value: torch.Tensor

    @classmethod
    def at(cls, f: Scalar, x: torch.Tensor) -> "_Evaluated":
        leaf = x.detach().requires_grad_(True)
        value = f(leaf)
        if not isinstance(value, torch.Tensor) or value.dim() != 0:
            shape = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
            raise ValueError(f"f must return a 0-dim tensor, got {shape}")
        return cls(leaf, value)

    def grad(self, out: torch.Tensor, *, create_graph: bool = False) -> torch.Tensor:
        """d out / d leaf, zeros where out does not depend on the leaf."""
        if out.requires_grad:
            (found,) = torch.autograd.grad(
                out, self.leaf, create_graph=create_graph, allow_unused=True
            )
            if found is not None:
                return found
        return torch.zeros_like(self.leaf, requires_grad=False)


def grad_of(f: Scalar, x: torch.Tensor) -> torch.Tensor:
    with torch.enable_grad():
        point = _Evaluated.at(f, x)
        return point.grad(point.value).detach()


def hessian_vector_product(f: Scalar, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    with torch.enable_grad():
        point = _Evaluated.at(f, x)
        first = point.grad(point.value, create_graph=True)
        return point.grad((first * v.detach()).sum()).detach()


def _retain_flags(count: int) -> list[bool]:
    """Keep the shared graph for every pass but the last."""
    return [True] * max(count - 1, 0) + [False] * min(count, 1)


def backward_each(losses: Sequence[torch.Tensor]) -> None:
    for loss, retain in zip(losses, _retain_flags(len(losses)), strict=True):
        loss.backward(retain_graph=retain)


def grads_per_loss(
    losses: Sequence[torch.Tensor], params: Sequence[torch.Tensor]
) -> list[tuple[torch.Tensor, ...]]:
    inputs = tuple(params)
    return [
        tuple(g.detach() for g in torch.autograd.grad(loss, inputs, retain_graph=retain))
        for loss, retain in zip(losses, _retain_flags(len(losses)), strict=True)
    ]
