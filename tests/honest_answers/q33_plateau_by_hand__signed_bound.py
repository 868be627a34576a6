"""Mode folded into a sign: both modes compare sign * metric against sign * bound."""

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
        signs = {"min": 1.0, "max": -1.0}
        if mode not in signs:
            raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}")
        if not 0.0 <= factor < 1.0:
            raise ValueError(f"factor must lie in [0, 1), got {factor}")
        if threshold < 0:
            raise ValueError(f"threshold must be >= 0, got {threshold}")
        if patience < 0:
            raise ValueError(f"patience must be >= 0, got {patience}")
        if cooldown < 0:
            raise ValueError(f"cooldown must be >= 0, got {cooldown}")
        self.optimizer = optimizer
        self.sign = signs[mode]
        self.factor = factor
        self.patience = patience
        self.threshold = threshold
        self.relative = threshold_mode == "rel"
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.eps = eps
        self.best = self.sign * math.inf  # +inf for "min", -inf for "max"
        self.bad_epochs = 0
        self.cooldown_left = 0

    def _improves(self, value: float) -> bool:
        if self.relative:
            bound = self.best * (1.0 - self.sign * self.threshold)
        else:
            bound = self.best - self.sign * self.threshold
        return self.sign * value < self.sign * bound

    def _cut(self) -> None:
        for group in self.optimizer.param_groups:
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lr)
            if old - new > self.eps:
                group["lr"] = new

    def step(self, metric: float | torch.Tensor) -> None:
        value = metric.item() if isinstance(metric, torch.Tensor) else float(metric)
        if self._improves(value):
            self.best = value
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1

        if self.cooldown_left > 0:
            self.cooldown_left -= 1
            self.bad_epochs = 0

        if self.bad_epochs > self.patience:
            self._cut()
            self.cooldown_left = self.cooldown
            self.bad_epochs = 0
