"""Modes as str-valued Enums (an unknown string fails in the Enum lookup with ValueError),
the improvement test as a match over the (mode, threshold mode) pair, __slots__ for the
state, and the metric read with Tensor.item()."""

import enum
import math

import torch


class Mode(enum.Enum):
    MIN = "min"
    MAX = "max"


class ThresholdMode(enum.Enum):
    REL = "rel"
    ABS = "abs"


class PlateauLR:
    __slots__ = (
        "bad_epochs",
        "best",
        "cooldown",
        "cooldown_left",
        "eps",
        "factor",
        "min_lr",
        "mode",
        "optimizer",
        "patience",
        "threshold",
        "threshold_mode",
    )

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
        self.mode = Mode(mode)
        self.threshold_mode = ThresholdMode(threshold_mode)
        checks = [
            (0.0 <= factor < 1.0, f"factor must be in [0, 1), got {factor}"),
            (not threshold < 0, f"threshold must not be negative, got {threshold}"),
            (not patience < 0, f"patience must not be negative, got {patience}"),
            (not cooldown < 0, f"cooldown must not be negative, got {cooldown}"),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        self.optimizer = optimizer
        self.factor = factor
        self.patience = patience
        self.threshold = threshold
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.eps = eps
        self.best = math.inf if self.mode is Mode.MIN else -math.inf
        self.bad_epochs = 0
        self.cooldown_left = 0

    def _improves(self, value: float) -> bool:
        best, threshold = self.best, self.threshold
        match self.mode, self.threshold_mode:
            case Mode.MIN, ThresholdMode.REL:
                return value < best * (1 - threshold)
            case Mode.MIN, ThresholdMode.ABS:
                return value < best - threshold
            case Mode.MAX, ThresholdMode.REL:
                return value > best * (1 + threshold)
            case _:
                return value > best + threshold

    def step(self, metric: float | torch.Tensor) -> None:
        value = metric.item() if isinstance(metric, torch.Tensor) else float(metric)
        if self._improves(value):
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
        if self.cooldown_left:
            self.cooldown_left -= 1
            self.bad_epochs = 0
        if self.bad_epochs <= self.patience:
            return
        for group in self.optimizer.param_groups:
            new_lr = max(group["lr"] * self.factor, self.min_lr)
            if group["lr"] - new_lr > self.eps:
                group["lr"] = new_lr
        self.cooldown_left, self.bad_epochs = self.cooldown, 0
