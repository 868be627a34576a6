"""Wrong: computes the cut with tensors and writes a 0-dim tensor, not a Python float, into
each param group's lr."""

import torch

from solutions.q33_plateau_by_hand import PlateauLR as _Reference  # the rest as in the reference


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
        if self.bad_epochs > self.patience:
            for group in self.optimizer.param_groups:
                lr = torch.as_tensor(group["lr"], dtype=torch.float64)
                new_lr = torch.clamp(lr * self.factor, min=self.min_lr)
                if lr - new_lr > self.eps:
                    group["lr"] = new_lr
            self.cooldown_left, self.bad_epochs = self.cooldown, 0
