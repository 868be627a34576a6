"""A dataclass with private fields and __post_init__; a penalty over a filtered list."""

import math
from dataclasses import dataclass, field
from typing import Optional

import torch
from torch import nn


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    if not (l1 >= 0 and l2 >= 0):
        raise ValueError("l1 and l2 must not be negative or NaN")
    params = list(model.parameters())
    if not params:
        return torch.zeros((), dtype=torch.float32, device="cpu")
    total = torch.zeros((), dtype=params[0].dtype, device=params[0].device)
    for p in filter(lambda p: p.ndim >= 2, params):
        total = total + l1 * p.abs().sum() + l2 * (p * p).sum()
    return total


@dataclass
class EarlyStopping:
    patience: int
    min_delta: float = 0.0
    best_loss: float = field(default=math.inf, init=False)
    _saved: Optional[dict] = field(default=None, init=False, repr=False)
    _waited: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.patience >= 1:
            raise ValueError(f"patience must be at least 1, got {self.patience}")
        if not (self.min_delta >= 0 and math.isfinite(self.min_delta)):
            raise ValueError(f"min_delta must be finite and >= 0, got {self.min_delta}")

    def step(self, val_loss: float, model: nn.Module) -> bool:
        if math.isfinite(val_loss) and val_loss < self.best_loss - self.min_delta:
            self.best_loss = val_loss
            self._saved = {k: v.detach().clone() for k, v in model.state_dict().items()}
            self._waited = 0
        else:
            self._waited += 1
        return self._waited >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        if self._saved is None:
            raise RuntimeError("no epoch has improved yet: nothing to restore")
        model.load_state_dict(self._saved)


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    if math.isnan(p) or p < 0 or p > 1:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    if not training:
        return x
    if p == 1:
        return torch.zeros_like(x) * x  # keeps the graph: the gradient is 0 everywhere
    dropped = torch.rand_like(x) < p
    return torch.where(dropped, torch.zeros_like(x), x / (1 - p))
