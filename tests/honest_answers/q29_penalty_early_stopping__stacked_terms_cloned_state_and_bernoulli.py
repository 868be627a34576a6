"""Weights filtered with a comprehension and summed with torch.stack, a dataclass stopper
that clones each tensor of the state, and a bernoulli keep-mask with early returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import nn


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    for name, value in (("l1", l1), ("l2", l2)):
        if not value >= 0:  # False for NaN too
            raise ValueError(f"{name} must be a non-negative number, got {value}")
    params = list(model.parameters())
    weights = [p for p in params if p.ndim >= 2]
    if not weights:
        ref = params[0] if params else None
        return torch.zeros(
            (),
            dtype=ref.dtype if ref is not None else torch.float32,
            device=ref.device if ref is not None else "cpu",
        )
    l1_terms = torch.stack([w.abs().sum() for w in weights])
    l2_terms = torch.stack([(w * w).sum() for w in weights])
    return l1 * l1_terms.sum() + l2 * l2_terms.sum()


@dataclass
class EarlyStopping:
    patience: int
    min_delta: float = 0.0
    best_loss: float = field(default=math.inf, init=False)
    _stale: int = field(default=0, init=False, repr=False)
    _snapshot: dict[str, torch.Tensor] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if math.isnan(self.patience) or self.patience < 1:
            raise ValueError("patience must be at least 1")
        if not math.isfinite(self.min_delta) or self.min_delta < 0:
            raise ValueError("min_delta must be a finite number >= 0")

    def step(self, val_loss: float, model: nn.Module) -> bool:
        improved = math.isfinite(val_loss) and val_loss < self.best_loss - self.min_delta
        if improved:
            self.best_loss = val_loss
            self._stale = 0
            self._snapshot = {
                key: value.detach().clone() for key, value in model.state_dict().items()
            }
            return False
        self._stale += 1
        return bool(self._stale >= self.patience)

    def restore_best(self, model: nn.Module) -> None:
        if self._snapshot is None:
            raise RuntimeError("restore_best called before any epoch improved")
        model.load_state_dict(self._snapshot)


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    if math.isnan(p) or p < 0 or p > 1:
        raise ValueError("p must be in [0, 1]")
    if not training or p == 0:
        return x
    if p == 1:
        return x * 0.0
    keep = torch.empty_like(x).bernoulli_(1.0 - p)
    return x * keep / (1.0 - p)
