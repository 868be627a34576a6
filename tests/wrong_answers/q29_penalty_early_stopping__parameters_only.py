"""Wrong: copies only the parameters, so BatchNorm's running statistics are not restored."""

import math

from solutions.q29_penalty_early_stopping import weight_penalty  # the rest as in the reference


class EarlyStopping:
    def __init__(self, patience, min_delta=0.0):
        if patience < 1 or min_delta < 0:
            raise ValueError("need patience >= 1 and min_delta >= 0")
        self.patience, self.min_delta = patience, min_delta
        self.best_loss, self.best_state, self.bad_epochs = math.inf, None, 0

    def step(self, val_loss, model):
        if val_loss < self.best_loss - self.min_delta:
            self.best_loss, self.bad_epochs = val_loss, 0
            self.best_state = {n: p.detach().clone() for n, p in model.named_parameters()}
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore_best(self, model):
        if self.best_state is None:
            raise RuntimeError("no weights saved yet")
        model.load_state_dict(self.best_state, strict=False)
