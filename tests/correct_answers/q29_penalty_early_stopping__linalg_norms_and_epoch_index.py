"""Correct: norms from torch.linalg, a detached clone of each state entry, epochs counted by
index since the best one."""

import math

import torch
from torch import nn


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    if math.isnan(l1) or math.isnan(l2) or min(l1, l2) < 0:
        raise ValueError("l1 and l2 must be >= 0")
    params = list(model.parameters())
    if not params:
        return torch.tensor(0.0, device="cpu")
    total = torch.zeros((), dtype=params[0].dtype, device=params[0].device)
    for w in params:
        if w.ndim < 2:
            continue
        total = total + l1 * torch.linalg.vector_norm(w, ord=1)
        total = total + l2 * torch.linalg.vector_norm(w, ord=2) ** 2
    return total


class EarlyStopping:
    def __init__(self, patience: int, min_delta: float = 0.0) -> None:
        if math.isnan(patience) or patience < 1:
            raise ValueError("patience must be >= 1")
        if not math.isfinite(min_delta) or min_delta < 0:
            raise ValueError("min_delta must be finite and >= 0")
        self.patience = patience
        self.min_delta = min_delta
        self.best_loss = math.inf
        self.epoch = 0
        self.best_epoch = 0
        self.saved: dict[str, torch.Tensor] | None = None

    def step(self, val_loss: float, model: nn.Module) -> bool:
        self.epoch += 1
        if math.isfinite(val_loss) and val_loss < self.best_loss - self.min_delta:
            self.best_loss = val_loss
            self.best_epoch = self.epoch
            self.saved = {k: v.detach().clone() for k, v in model.state_dict().items()}
        return self.epoch - self.best_epoch >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        if self.saved is None:
            raise RuntimeError("nothing to restore: no epoch has improved yet")
        model.load_state_dict(self.saved)


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    if math.isnan(p) or p < 0 or p > 1:
        raise ValueError(f"dropout probability {p} is not in [0, 1]")
    if not training:
        return x
    scale = 0.0 if p == 1 else 1 / (1 - p)
    mask = torch.empty_like(x).bernoulli_(1 - p)  # 1 with probability 1 - p
    return x * mask * scale
