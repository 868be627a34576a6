"""Modes as str Enums (whose lookup raises), improvement by a match statement, a dataclass."""

import enum
import math
from dataclasses import dataclass

import torch


class Mode(str, enum.Enum):
    MIN = "min"
    MAX = "max"


class ThresholdMode(str, enum.Enum):
    REL = "rel"
    ABS = "abs"


@dataclass
class _Counters:
    best: float
    bad_epochs: int = 0
    cooldown_left: int = 0


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
        self.mode = Mode(mode)  # ValueError: 'x' is not a valid Mode
        self.threshold_mode = ThresholdMode(threshold_mode)
        if not 0.0 <= factor < 1.0:
            raise ValueError(f"factor must be in [0, 1), got {factor}")
        if threshold < 0 or patience < 0 or cooldown < 0:
            raise ValueError(
                f"threshold, patience, cooldown must be >= 0: {threshold}, {patience}, {cooldown}"
            )
        self.optimizer = optimizer
        self.factor = factor
        self.patience = patience
        self.threshold = threshold
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.eps = eps
        self.state = _Counters(best=math.inf if self.mode is Mode.MIN else -math.inf)

    def _improves(self, value: float) -> bool:
        best, t = self.state.best, self.threshold
        match self.mode, self.threshold_mode:
            case Mode.MIN, ThresholdMode.REL:
                return value < best * (1.0 - t)
            case Mode.MIN, ThresholdMode.ABS:
                return value < best - t
            case Mode.MAX, ThresholdMode.REL:
                return value > best * (1.0 + t)
            case _:
                return value > best + t

    def _cut(self) -> None:
        for group in self.optimizer.param_groups:
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lr)
            if old - new > self.eps:
                group["lr"] = new

    def step(self, metric: float | torch.Tensor) -> None:
        value = float(metric)
        state = self.state
        if self._improves(value):
            state.best = value
            state.bad_epochs = 0
        else:
            state.bad_epochs += 1
        if state.cooldown_left > 0:
            state.cooldown_left -= 1
            state.bad_epochs = 0
        if state.bad_epochs > self.patience:
            self._cut()
            state.cooldown_left = self.cooldown
            state.bad_epochs = 0
