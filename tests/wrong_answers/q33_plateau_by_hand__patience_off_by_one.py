"""Wrong: cuts when the bad epochs reach `patience` instead of when they exceed it."""

from solutions.q33_plateau_by_hand import PlateauLR as _Reference


class PlateauLR(_Reference):
    def step(self, metric):
        value = float(metric)
        if self._improves(value):
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
        if self.cooldown_left > 0:
            self.cooldown_left -= 1
            self.bad_epochs = 0
        if self.bad_epochs >= self.patience:
            for group in self.optimizer.param_groups:
                new_lr = max(group["lr"] * self.factor, self.min_lr)
                if group["lr"] - new_lr > self.eps:
                    group["lr"] = new_lr
            self.cooldown_left, self.bad_epochs = self.cooldown, 0
