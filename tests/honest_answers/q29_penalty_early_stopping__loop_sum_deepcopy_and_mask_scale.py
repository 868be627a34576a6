"""A plain loop over parameters() with a running sum, deepcopy of the state_dict, an
epochs-without-improvement counter, and dropout as x * mask * scale with scale 0 at p = 1."""

import copy
import math

import torch
from torch import nn


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    if math.isnan(l1) or math.isnan(l2) or l1 < 0 or l2 < 0:
        raise ValueError(f"l1 and l2 must be >= 0, got {l1}, {l2}")
    params = list(model.parameters())  # parameters() yields a shared tensor once
    if not params:
        return torch.zeros((), device="cpu")  # the CPU even under another default device
    total = torch.zeros((), dtype=params[0].dtype, device=params[0].device)
    for w in params:
        if w.dim() < 2:
            continue
        total = total + l1 * w.abs().sum() + l2 * w.pow(2).sum()
    return total


class EarlyStopping:
    def __init__(self, patience: int, min_delta: float = 0.0) -> None:
        if not patience >= 1:
            raise ValueError(f"patience must be >= 1, got {patience}")
        if not (math.isfinite(min_delta) and min_delta >= 0):
            raise ValueError(f"min_delta must be finite and >= 0, got {min_delta}")
        self.patience = patience
        self.min_delta = min_delta
        self.best_loss = math.inf
        self.bad_epochs = 0
        self._best_state: dict | None = None

    def step(self, val_loss: float, model: nn.Module) -> bool:
        loss = float(val_loss)
        if math.isfinite(loss) and loss < self.best_loss - self.min_delta:
            self.best_loss = loss
            self.bad_epochs = 0
            self._best_state = copy.deepcopy(model.state_dict())
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        if self._best_state is None:
            raise RuntimeError("no epoch has improved yet: nothing to restore")
        model.load_state_dict(self._best_state)


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    if not training:
        return x
    keep = torch.rand_like(x) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return x * keep * scale
