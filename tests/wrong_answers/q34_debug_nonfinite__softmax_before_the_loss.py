"""Wrong: applies softmax to the logits before cross_entropy, which applies log_softmax itself."""

import torch
import torch.nn.functional as F

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    first_nonfinite_module,
    nan_born_in_backward,
    validate_batch,
)


def overfit_one_batch(model, inputs, targets, steps=50, lr=0.5):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs).softmax(dim=1), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
