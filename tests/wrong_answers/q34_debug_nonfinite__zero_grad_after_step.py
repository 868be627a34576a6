"""Wrong: zeroes the gradients after each step, so leftover .grad goes into the first update."""

import torch
import torch.nn.functional as F

from solutions.q34_debug_nonfinite import (
    first_nonfinite_module,
    nan_born_in_backward,
    validate_batch,
)


def overfit_one_batch(model, inputs, targets, steps=50, lr=0.5):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses
