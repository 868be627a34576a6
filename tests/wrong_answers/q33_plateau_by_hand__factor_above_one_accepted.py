"""Wrong: rejects factor 1 and negative factors only, so a factor above 1 (which raises the
lr) is accepted."""

import math

from solutions.q33_plateau_by_hand import PlateauLR as _Reference  # the rest as in the reference


class PlateauLR(_Reference):
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
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError(f"unknown mode {mode!r} or threshold_mode {threshold_mode!r}")
        if factor == 1.0 or factor < 0.0:
            raise ValueError(f"factor must be in [0, 1), got {factor}")
        if threshold < 0 or patience < 0 or cooldown < 0:
            raise ValueError("threshold, patience and cooldown must not be negative")
        self.optimizer = optimizer
        self.mode, self.threshold_mode, self.threshold = mode, threshold_mode, threshold
        self.factor, self.patience, self.cooldown = factor, patience, cooldown
        self.min_lr, self.eps = min_lr, eps
        self.best = math.inf if mode == "min" else -math.inf
        self.bad_epochs = 0
        self.cooldown_left = 0
