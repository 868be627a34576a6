"""The scheduler's own structure, an is_better method and a _cut helper."""

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
        if mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}")
        if not 0.0 <= factor < 1.0:
            raise ValueError(f"factor must be in [0, 1), got {factor}")
        if threshold < 0:
            raise ValueError(f"threshold must be >= 0, got {threshold}")
        if patience < 0:
            raise ValueError(f"patience must be >= 0, got {patience}")
        if cooldown < 0:
            raise ValueError(f"cooldown must be >= 0, got {cooldown}")
        self.optimizer = optimizer
        self.mode = mode
        self.factor = factor
        self.patience = patience
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.eps = eps
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = 0
        self.cooldown_counter = 0

    def is_better(self, current: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return current < self.best * (1.0 - self.threshold)
        if self.mode == "min":
            return current < self.best - self.threshold
        if self.threshold_mode == "rel":
            return current > self.best * (1.0 + self.threshold)
        return current > self.best + self.threshold

    def _cut(self) -> None:
        for group in self.optimizer.param_groups:
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    def step(self, metric: float | torch.Tensor) -> None:
        current = metric.item() if isinstance(metric, torch.Tensor) else float(metric)
        if self.is_better(current):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._cut()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
