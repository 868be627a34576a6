"""Kata 29: fight overfitting with a weight penalty and early stopping (reference answer)."""

import copy
import math

import torch
from torch import nn


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    if not (l1 >= 0 and l2 >= 0):  # written so that nan fails it too
        raise ValueError(f"penalty strengths must be >= 0, got l1={l1}, l2={l2}")
    # Weight matrices and kernels have >= 2 dims; biases and norm scales/shifts have 1.
    parameters = list(model.parameters())
    weights = [p for p in parameters if p.dim() >= 2]
    # Start from a zero of the parameters' dtype and device, so a model without weights
    # (only biases and norm layers) still gets a 0 where its parameters are.
    penalty = parameters[0].new_zeros(()) if parameters else torch.zeros((), device="cpu")
    for w in weights:
        penalty = penalty + l1 * w.abs().sum() + l2 * w.pow(2).sum()
    return penalty


class EarlyStopping:
    def __init__(self, patience: int, min_delta: float = 0.0) -> None:
        # Written so that nan fails it (every comparison with nan is False); with an
        # infinite min_delta no epoch could improve.
        if not (patience >= 1 and 0 <= min_delta < math.inf):
            raise ValueError(f"need patience >= 1 and min_delta >= 0, got {patience}, {min_delta}")
        self.patience, self.min_delta = patience, min_delta
        self.best_loss = math.inf
        self.best_state: dict[str, torch.Tensor] | None = None
        self.bad_epochs = 0

    def step(self, val_loss: float, model: nn.Module) -> bool:
        # A loss that is not finite never improves (-inf would leave nothing to beat).
        if math.isfinite(val_loss) and val_loss < self.best_loss - self.min_delta:
            self.best_loss, self.bad_epochs = val_loss, 0
            # deepcopy clones the tensors: state_dict() alone shares storage with the live
            # parameters, and the next optimizer step would overwrite the "best" weights.
            self.best_state = copy.deepcopy(model.state_dict())
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        if self.best_state is None:
            raise RuntimeError("no weights saved yet: call step() at least once")
        model.load_state_dict(self.best_state)  # copies in place: parameters stay the same


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    if not 0 <= p <= 1:  # written so that nan fails it too
        raise ValueError(f"p must be in [0, 1], got {p}")
    if not training or p == 0:
        return x  # eval mode: dropout is the identity
    if p == 1:
        return x * 0  # everything dropped (1 / (1 - p) would be inf, and 0 * inf NaN)
    keep = torch.rand_like(x) >= p  # kept with probability 1 - p
    # Scale the survivors so that the expected output equals x: eval then needs no change.
    return x * keep / (1 - p)
