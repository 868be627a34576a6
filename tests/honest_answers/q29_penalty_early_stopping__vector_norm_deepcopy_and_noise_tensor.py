"""linalg.vector_norm for L1, a deepcopy'd state_dict, ATen-style scaled noise."""

import copy
import math

import torch
from torch import nn


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    """Sum the L1 norm and the squared entries of every parameter with two or more dims."""
    if not (l1 >= 0 and l2 >= 0):
        raise ValueError(f"l1 and l2 must be >= 0, got {l1} and {l2}")
    params = list(model.parameters())  # parameters() yields a shared tensor once
    if not params:
        return torch.zeros((), device="cpu")
    weights = [p for p in params if p.dim() >= 2]
    if not weights:
        return torch.zeros((), dtype=params[0].dtype, device=params[0].device)
    l1_sum = sum(torch.linalg.vector_norm(w, ord=1) for w in weights)
    l2_sum = sum(w.square().sum() for w in weights)
    return l1 * l1_sum + l2 * l2_sum  # type: ignore[return-value]


class EarlyStopping:
    """Counts epochs without improvement; keeps a deep copy of the best state_dict."""

    def __init__(self, patience: int, min_delta: float = 0.0) -> None:
        if not patience >= 1:
            raise ValueError(f"patience must be >= 1, got {patience}")
        if not (math.isfinite(min_delta) and min_delta >= 0):
            raise ValueError(f"min_delta must be finite and >= 0, got {min_delta}")
        self.patience = patience
        self.min_delta = min_delta
        self.best_loss = math.inf
        self.epochs_without_improvement = 0
        self._best_state: dict[str, torch.Tensor] | None = None

    def step(self, val_loss: float, model: nn.Module) -> bool:
        loss = float(val_loss)
        if math.isfinite(loss) and loss < self.best_loss - self.min_delta:
            self.best_loss = loss
            self._best_state = copy.deepcopy(model.state_dict())
            self.epochs_without_improvement = 0
            return False
        self.epochs_without_improvement += 1
        return self.epochs_without_improvement >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        if self._best_state is None:
            raise RuntimeError("no epoch has improved yet: nothing to restore")
        model.load_state_dict(self._best_state)


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    """Bernoulli noise in x's dtype, scaled in place by 1 / (1 - p), times x (as ATen does)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p}")
    if not training:
        return x
    noise = torch.empty_like(x).bernoulli_(1.0 - p)
    if p < 1.0:
        noise.div_(1.0 - p)
    return x * noise
