"""Flattened dot products for the penalty, the best state kept as CPU copies,
a bernoulli_ keep-mask."""

import copy
import math

import torch
from torch import nn


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    if not (l1 >= 0 and l2 >= 0):
        raise ValueError(f"l1 and l2 must be >= 0, got {l1} and {l2}")
    params = list(model.parameters())
    if not params:
        return torch.zeros((), dtype=torch.float32, device="cpu")
    total = params[0].new_zeros(())
    for w in params:
        if w.dim() < 2:
            continue
        flat = w.reshape(-1)
        total = total + l1 * flat.abs().sum() + l2 * (flat @ flat)
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
        self._best_state: dict[str, object] | None = None

    def step(self, val_loss: float, model: nn.Module) -> bool:
        loss = float(val_loss)
        if math.isfinite(loss) and loss < self.best_loss - self.min_delta:
            self.best_loss = loss
            self.bad_epochs = 0
            self._best_state = {
                key: value.detach().to("cpu", copy=True)
                if isinstance(value, torch.Tensor)
                else copy.deepcopy(value)
                for key, value in model.state_dict().items()
            }
            return False
        self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        if self._best_state is None:
            raise RuntimeError("no epoch has improved yet: nothing to restore")
        model.load_state_dict(self._best_state)


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    if not 0 <= p <= 1:
        raise ValueError(f"p must be in [0, 1], got {p}")
    if not training:
        return x
    keep = torch.empty(x.shape, dtype=torch.float32, device=x.device).bernoulli_(1 - p)
    scale = 0.0 if p == 1 else 1 / (1 - p)
    return x * (keep.to(x.dtype) * scale)
