"""Wrong: makes a new optimizer at every step instead of once."""

import torch
import torch.nn.functional as F

from solutions.q34_debug_nonfinite import (
    first_nonfinite_module,
    nan_born_in_backward,
    validate_batch,
)


def overfit_one_batch(model, inputs, targets, steps=50, lr=0.5):
    losses = []
    for _ in range(steps):
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
