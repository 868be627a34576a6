"""The epoch logic as a generator coroutine: step() sends each metric into it, and its local
variables are the best value, the bad-epoch count and the cooldown left."""

import math
from collections.abc import Callable, Generator

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
        if mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}")
        if not 0 <= factor < 1:
            raise ValueError(f"factor must be in [0, 1), got {factor}")
        if threshold < 0:
            raise ValueError(f"threshold must be >= 0, got {threshold}")
        if patience < 0:
            raise ValueError(f"patience must be >= 0, got {patience}")
        if cooldown < 0:
            raise ValueError(f"cooldown must be >= 0, got {cooldown}")
        self.optimizer = optimizer
        self.factor = factor
        self.patience = patience
        self.cooldown = cooldown
        self.min_lr = float(min_lr)
        self.eps = eps
        self._improves = self._comparison(mode, threshold_mode, threshold)
        self._epochs = self._run(math.inf if mode == "min" else -math.inf)
        next(self._epochs)

    @staticmethod
    def _comparison(
        mode: str, threshold_mode: str, threshold: float
    ) -> Callable[[float, float], bool]:
        if mode == "min" and threshold_mode == "rel":
            return lambda metric, best: metric < best * (1 - threshold)
        if mode == "min":
            return lambda metric, best: metric < best - threshold
        if threshold_mode == "rel":
            return lambda metric, best: metric > best * (1 + threshold)
        return lambda metric, best: metric > best + threshold

    def _run(self, best: float) -> Generator[None, float, None]:
        bad = 0
        cooldown_left = 0
        while True:
            metric = yield
            if self._improves(metric, best):
                best = metric
                bad = 0
            else:
                bad += 1
            if cooldown_left > 0:
                cooldown_left -= 1
                bad = 0
            if bad > self.patience:
                self._cut()
                cooldown_left = self.cooldown
                bad = 0

    def _cut(self) -> None:
        for group in self.optimizer.param_groups:
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lr)
            if old - new > self.eps:
                group["lr"] = new

    def step(self, metric: float | torch.Tensor) -> None:
        value = metric.item() if isinstance(metric, torch.Tensor) else float(metric)
        self._epochs.send(float(value))
