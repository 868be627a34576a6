"""Wrong: records a separate eval-mode loss, not the loss each step computed."""

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
    mode = model.training
    for _ in range(steps):
        with torch.no_grad():
            model.eval()
            losses.append(F.cross_entropy(model(inputs), targets).item())
            model.train(mode)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
    return losses
