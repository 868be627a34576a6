"""A dataclass: the settings are its fields, checked in __post_init__; the counters are fields
with init=False; the improvement test is an operator.lt / operator.gt against a bound."""

import math
import operator
from dataclasses import dataclass, field

import torch


@dataclass(eq=False)
class PlateauLR:
    optimizer: torch.optim.Optimizer
    mode: str = "min"
    factor: float = 0.1
    patience: int = 10
    threshold: float = 1e-4
    threshold_mode: str = "rel"
    cooldown: int = 0
    min_lr: float = 0.0
    eps: float = 1e-8
    best: float = field(init=False)
    num_bad_epochs: int = field(init=False, default=0)
    cooldown_counter: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        problems = {
            "mode must be 'min' or 'max'": self.mode not in {"min", "max"},
            "threshold_mode must be 'rel' or 'abs'": self.threshold_mode not in {"rel", "abs"},
            "factor must be in [0, 1)": not 0.0 <= self.factor < 1.0,
            "threshold must be >= 0": self.threshold < 0,
            "patience must be >= 0": self.patience < 0,
            "cooldown must be >= 0": self.cooldown < 0,
        }
        for message, bad in problems.items():
            if bad:
                raise ValueError(message)
        self.best = math.inf if self.mode == "min" else -math.inf

    def _bound(self) -> float:
        sign = -1.0 if self.mode == "min" else 1.0
        if self.threshold_mode == "rel":
            return self.best * (1.0 + sign * self.threshold)
        return self.best + sign * self.threshold

    def step(self, metric: float | torch.Tensor) -> None:
        current = float(metric.item() if isinstance(metric, torch.Tensor) else metric)
        beats = operator.lt if self.mode == "min" else operator.gt
        if beats(current, self._bound()):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs <= self.patience:
            return
        for group in self.optimizer.param_groups:
            lr = float(group["lr"])
            new_lr = max(lr * self.factor, float(self.min_lr))
            if lr - new_lr > self.eps:
                group.update(lr=new_lr)
        self.cooldown_counter = self.cooldown
        self.num_bad_epochs = 0
