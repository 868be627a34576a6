"""Wrong: subclasses ReduceLROnPlateau and reuses its setup and cooldown (a builtin base class)."""

from torch.optim.lr_scheduler import ReduceLROnPlateau


class PlateauLR(ReduceLROnPlateau):
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
        if not 0.0 <= factor < 1.0 or threshold < 0 or patience < 0 or cooldown < 0:
            raise ValueError("bad settings")
        self.optimizer = optimizer
        self.factor, self.patience, self.cooldown = factor, patience, cooldown
        self.min_lr, self.eps = min_lr, eps
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def step(self, metric):
        value = float(metric)
        if self.mode == "min":
            bar = self.best * (1 - self.threshold) if self.threshold_mode == "rel" else None
            better = value < (bar if bar is not None else self.best - self.threshold)
        else:
            bar = self.best * (1 + self.threshold) if self.threshold_mode == "rel" else None
            better = value > (bar if bar is not None else self.best + self.threshold)
        if better:
            self.best, self.num_bad_epochs = value, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for group in self.optimizer.param_groups:
                new_lr = max(group["lr"] * self.factor, self.min_lr)
                if group["lr"] - new_lr > self.eps:
                    group["lr"] = new_lr
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
