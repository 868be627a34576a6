"""Correct: the settings validated in a dataclass's __post_init__, the improvement bar
computed by a nested function, the cooldown as a countdown of remaining epochs."""

import math
from dataclasses import dataclass

import torch


@dataclass
class _Settings:
    mode: str
    factor: float
    patience: int
    threshold: float
    threshold_mode: str
    cooldown: int
    min_lr: float
    eps: float

    def __post_init__(self):
        if self.mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max', got {self.mode!r}")
        if self.threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold_mode must be 'rel' or 'abs', got {self.threshold_mode!r}")
        if not 0 <= self.factor < 1:
            raise ValueError(f"factor must be in [0, 1), got {self.factor}")
        if self.threshold < 0 or self.patience < 0 or self.cooldown < 0:
            raise ValueError("threshold, patience and cooldown must be non-negative")


@dataclass
class _State:
    best: float
    bad_epochs: int = 0
    cooldown_left: int = 0


class PlateauLR:
    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0.0,
        eps=1e-8,
    ):
        self.settings = _Settings(
            mode, factor, patience, threshold, threshold_mode, cooldown, min_lr, eps
        )
        self.optimizer = optimizer
        self.state = _State(best=math.inf if mode == "min" else -math.inf)

    def _improves(self, value):
        s, best = self.settings, self.state.best
        if s.mode == "min":
            bar = best * (1 - s.threshold) if s.threshold_mode == "rel" else best - s.threshold
            return value < bar
        bar = best * (1 + s.threshold) if s.threshold_mode == "rel" else best + s.threshold
        return value > bar

    def _cut(self):
        s = self.settings
        for group in self.optimizer.param_groups:
            old = group["lr"]
            new = max(old * s.factor, s.min_lr)
            if old - new > s.eps:
                group["lr"] = new

    def step(self, metric):
        value = metric.item() if isinstance(metric, torch.Tensor) else float(metric)
        state = self.state
        if self._improves(value):
            state.best = value
            state.bad_epochs = 0
        else:
            state.bad_epochs += 1
        if state.cooldown_left > 0:
            state.cooldown_left -= 1
            state.bad_epochs = 0
        if state.bad_epochs > self.settings.patience:
            self._cut()
            state.cooldown_left = self.settings.cooldown
            state.bad_epochs = 0
