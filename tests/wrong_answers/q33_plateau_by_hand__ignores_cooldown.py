"""Wrong: keeps counting bad epochs during the cooldown, so cuts come too soon after a cut."""

from solutions.q33_plateau_by_hand import PlateauLR as _Reference


class PlateauLR(_Reference):
    def step(self, metric):
        value = float(metric)
        if self._improves(value):
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
        if self.bad_epochs > self.patience:
            for group in self.optimizer.param_groups:
                new_lr = max(group["lr"] * self.factor, self.min_lr)
                if group["lr"] - new_lr > self.eps:
                    group["lr"] = new_lr
            self.bad_epochs = 0
