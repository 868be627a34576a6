"""Correct: the penalty from torch.stack of per-weight terms; the best state kept as
clones and restored with copy_ under no_grad."""

import math

import torch


def weight_penalty(model, l1=0.0, l2=0.0):
    for value in (l1, l2):
        if math.isnan(value) or value < 0:
            raise ValueError("l1 and l2 must be >= 0")
    params = list(model.parameters())
    if not params:
        return torch.zeros((), device="cpu")
    terms = [l1 * p.abs().sum() + l2 * (p * p).sum() for p in params if p.ndim > 1]
    if not terms:
        return params[0].new_zeros(())
    return torch.stack(terms).sum()


class EarlyStopping:
    def __init__(self, patience, min_delta=0.0):
        if math.isnan(patience) or patience < 1:
            raise ValueError("patience must be >= 1")
        if not math.isfinite(min_delta) or min_delta < 0:
            raise ValueError("min_delta must be finite and >= 0")
        self.patience = patience
        self.min_delta = min_delta
        self.best_loss = math.inf
        self._saved = None
        self._waited = 0

    def step(self, val_loss, model):
        improved = math.isfinite(val_loss) and self.best_loss - val_loss > self.min_delta
        if improved:
            self.best_loss = val_loss
            self._waited = 0
            self._saved = {k: v.detach().clone() for k, v in model.state_dict().items()}
            return False
        self._waited += 1
        return self._waited >= self.patience

    def restore_best(self, model):
        if self._saved is None:
            raise RuntimeError("nothing saved yet")
        with torch.no_grad():
            for key, value in model.state_dict().items():
                value.copy_(self._saved[key])


def dropout(x, p, training):
    if not (0.0 <= p <= 1.0):
        raise ValueError("p must lie in [0, 1]")
    if not training or p == 0.0:
        return x.clone()
    # A survivor keeps x / (1 - p); where everything is dropped, where() picks 0 outright.
    survivors = torch.rand(x.shape, device=x.device) < 1 - p
    return torch.where(survivors, x / (1 - p) if p < 1 else x, torch.zeros_like(x))
