"""Wrong: keeps the best weights in a dict defined on the class and updates it in place, so
every EarlyStopping object shares one saved state."""

import copy

from solutions.q29_penalty_early_stopping import EarlyStopping as Reference, weight_penalty


class EarlyStopping(Reference):
    saved: dict = {}  # noqa: RUF012

    def step(self, val_loss, model):
        if val_loss < self.best_loss - self.min_delta:
            self.best_loss, self.bad_epochs = val_loss, 0
            self.saved.clear()
            self.saved.update(copy.deepcopy(model.state_dict()))
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore_best(self, model):
        if self.best_loss == float("inf"):
            raise RuntimeError("no weights saved yet: call step() at least once")
        model.load_state_dict(self.saved)
