"""Wrong: the first call always counts as an improvement, so a first loss of nan becomes the
best loss and no later loss can beat it."""

import copy
import math

import torch
from torch import nn

from solutions.q29_penalty_early_stopping import weight_penalty  # the rest as in the reference


class EarlyStopping:
    def __init__(self, patience: int, min_delta: float = 0.0) -> None:
        if patience < 1 or min_delta < 0:
            raise ValueError(f"need patience >= 1 and min_delta >= 0, got {patience}, {min_delta}")
        self.patience, self.min_delta = patience, min_delta
        self.best_loss = math.inf
        self.best_state: dict[str, torch.Tensor] | None = None
        self.bad_epochs = 0

    def step(self, val_loss: float, model: nn.Module) -> bool:
        if self.best_state is None or val_loss < self.best_loss - self.min_delta:
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
