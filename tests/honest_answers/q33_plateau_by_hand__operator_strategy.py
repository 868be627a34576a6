"""The improvement test picked once from a table of operator-based lambdas; plain int counters."""

import math
import operator

import torch

# (mode, threshold_mode) -> the bound a metric must beat, and how it must beat it.
_BOUNDS = {
    ("min", "rel"): (lambda best, t: best * (1 - t), operator.lt),
    ("min", "abs"): (lambda best, t: best - t, operator.lt),
    ("max", "rel"): (lambda best, t: best * (1 + t), operator.gt),
    ("max", "abs"): (lambda best, t: best + t, operator.gt),
}


class PlateauLR:
    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: float = 0.0,
        eps: float = 1e-8,
    ) -> None:
        if (mode, threshold_mode) not in _BOUNDS:
            raise ValueError(f"unknown mode {mode!r} or threshold_mode {threshold_mode!r}")
        if not 0.0 <= factor < 1.0:
            raise ValueError(f"factor must be in [0, 1), got {factor}")
        for name, value in (
            ("threshold", threshold),
            ("patience", patience),
            ("cooldown", cooldown),
        ):
            if value < 0:
                raise ValueError(f"{name} must be >= 0, got {value}")
        self.optimizer = optimizer
        self.factor, self.patience, self.cooldown = factor, patience, cooldown
        self.threshold, self.min_lr, self.eps = threshold, min_lr, eps
        self._bound, self._beats = _BOUNDS[mode, threshold_mode]
        self.best = math.inf if mode == "min" else -math.inf
        self.bad_epochs = 0
        self.cooldown_left = 0

    def _improves(self, value: float) -> bool:
        return bool(self._beats(value, self._bound(self.best, self.threshold)))

    def step(self, metric: float | torch.Tensor) -> None:
        value = float(metric)
        if self._improves(value):
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
        if self.cooldown_left > 0:
            self.cooldown_left -= 1
            self.bad_epochs = 0
        if self.bad_epochs <= self.patience:
            return
        for group in self.optimizer.param_groups:
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lr)
            if old - new > self.eps:
                group["lr"] = new
        self.bad_epochs, self.cooldown_left = 0, self.cooldown
