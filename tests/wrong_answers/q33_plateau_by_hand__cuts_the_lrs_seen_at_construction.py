"""Wrong: keeps its own copy of the lrs from construction and cuts those, so an lr changed
in the optimizer since then is overwritten."""

from solutions.q33_plateau_by_hand import PlateauLR as _Reference  # the rest as in the reference


class PlateauLR(_Reference):
    def __init__(self, optimizer, *args, **kwargs):
        super().__init__(optimizer, *args, **kwargs)
        self.lrs = [group["lr"] for group in optimizer.param_groups]

    def step(self, metric):
        value = float(metric)
        if self._improves(value):
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
        if self.cooldown_left > 0:
            self.cooldown_left -= 1
            self.bad_epochs = 0
        if self.bad_epochs > self.patience:
            for i, group in enumerate(self.optimizer.param_groups):
                new_lr = max(self.lrs[i] * self.factor, self.min_lr)
                if self.lrs[i] - new_lr > self.eps:
                    self.lrs[i] = group["lr"] = new_lr
            self.cooldown_left, self.bad_epochs = self.cooldown, 0
