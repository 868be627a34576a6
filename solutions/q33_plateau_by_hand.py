"""Kata 33: reduce the learning rate when a metric stops improving (reference answer)."""

import math

import torch


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
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError(f"unknown mode {mode!r} or threshold_mode {threshold_mode!r}")
        if not 0.0 <= factor < 1.0:
            raise ValueError(f"factor must be in [0, 1), got {factor}")
        if threshold < 0 or patience < 0 or cooldown < 0:
            raise ValueError("threshold, patience and cooldown must not be negative")
        self.optimizer = optimizer
        self.mode, self.threshold_mode, self.threshold = mode, threshold_mode, threshold
        self.factor, self.patience, self.cooldown = factor, patience, cooldown
        self.min_lr, self.eps = min_lr, eps
        # The worst possible value, so that the first metric is always a new best.
        self.best = math.inf if mode == "min" else -math.inf
        self.bad_epochs = 0
        self.cooldown_left = 0

    def _improves(self, value: float) -> bool:
        if self.mode == "min":
            rel, bar = self.best * (1 - self.threshold), self.best - self.threshold
            return value < (rel if self.threshold_mode == "rel" else bar)
        rel, bar = self.best * (1 + self.threshold), self.best + self.threshold
        return value > (rel if self.threshold_mode == "rel" else bar)

    def step(self, metric: float | torch.Tensor) -> None:
        value = float(metric)  # a 0-dim tensor on any device becomes a Python float
        if self._improves(value):
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
        if self.cooldown_left > 0:  # just after a cut: give the new lr time to work
            self.cooldown_left -= 1
            self.bad_epochs = 0
        if self.bad_epochs > self.patience:
            for group in self.optimizer.param_groups:
                new_lr = max(group["lr"] * self.factor, self.min_lr)
                if group["lr"] - new_lr > self.eps:  # skip changes too small to matter
                    group["lr"] = new_lr
            self.cooldown_left, self.bad_epochs = self.cooldown, 0
