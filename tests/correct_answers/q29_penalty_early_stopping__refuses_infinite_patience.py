"""Correct: EarlyStopping refuses an infinite patience (what it does is left open)."""

import copy
import math
from typing import Any

import torch
from torch import nn

from solutions.q29_penalty_early_stopping import dropout  # as in the reference


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    if not (l1 >= 0 and l2 >= 0):
        raise ValueError(f"l1 and l2 must be >= 0, got {l1} and {l2}")
    params = list(model.parameters())  # each shared parameter once
    if not params:
        return torch.zeros((), dtype=torch.float32, device="cpu")  # whatever the defaults
    zero = torch.zeros((), dtype=params[0].dtype, device=params[0].device)
    weights = [p for p in params if p.dim() >= 2]
    return sum((l1 * w.abs().sum() + l2 * (w * w).sum() for w in weights), zero)


class EarlyStopping:
    def __init__(self, patience: int, min_delta: float = 0.0) -> None:
        if not 1 <= patience < math.inf:  # an infinite patience is left open: refused here
            raise ValueError(f"patience must be a finite number >= 1, got {patience}")
        if not (math.isfinite(min_delta) and min_delta >= 0):
            raise ValueError(f"min_delta must be finite and >= 0, got {min_delta}")
        self.patience = patience
        self.min_delta = min_delta
        self.best_loss = math.inf
        self.stale_epochs = 0
        self._best_state: dict[str, Any] | None = None

    def step(self, val_loss: float, model: nn.Module) -> bool:
        loss = float(val_loss)
        if math.isfinite(loss) and loss < self.best_loss - self.min_delta:
            self.best_loss = loss
            self._best_state = copy.deepcopy(model.state_dict())
            self.stale_epochs = 0
            return False
        self.stale_epochs += 1
        return self.stale_epochs >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        if self._best_state is None:
            raise RuntimeError("no epoch has improved yet")
        model.load_state_dict(self._best_state)
