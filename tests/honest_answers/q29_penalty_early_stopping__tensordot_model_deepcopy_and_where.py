"""L2 as a full tensordot contraction of each weight with itself; the best epoch kept as a deep
copy of the whole model; dropout as torch.where over float64 uniform draws."""

import copy
import math

import torch
from torch import nn


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    for name, value in (("l1", l1), ("l2", l2)):
        if math.isnan(value) or value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    first = next(model.parameters(), None)
    if first is None:
        return torch.tensor(0.0, dtype=torch.float32, device="cpu")
    zero = torch.zeros((), dtype=first.dtype, device=first.device)
    weights = (w for w in model.parameters() if w.ndim >= 2)
    return sum(
        (l1 * torch.sum(torch.abs(w)) + l2 * torch.tensordot(w, w, dims=w.ndim) for w in weights),
        zero,
    )


class EarlyStopping:
    def __init__(self, patience: int, min_delta: float = 0.0) -> None:
        if not (patience >= 1):
            raise ValueError(f"patience must be >= 1, got {patience!r}")
        if math.isnan(min_delta) or math.isinf(min_delta) or min_delta < 0:
            raise ValueError(f"min_delta must be finite and >= 0, got {min_delta!r}")
        self.patience = patience
        self.min_delta = min_delta
        self.best_loss = math.inf
        self.epochs_without_improvement = 0
        self.best_model: nn.Module | None = None

    def step(self, val_loss: float, model: nn.Module) -> bool:
        improved = math.isfinite(val_loss) and val_loss < self.best_loss - self.min_delta
        if improved:
            self.best_loss = val_loss
            self.epochs_without_improvement = 0
            self.best_model = copy.deepcopy(model)
        else:
            self.epochs_without_improvement += 1
        return self.epochs_without_improvement >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        if self.best_model is None:
            raise RuntimeError("restore_best before any epoch improved")
        model.load_state_dict(self.best_model.state_dict())


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    if math.isnan(p) or not 0 <= p <= 1:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    if not training:
        return x
    if p == 1:
        return x * 0
    keep = torch.rand_like(x, dtype=torch.float64) >= p
    return torch.where(keep, x / (1 - p), torch.zeros_like(x))
