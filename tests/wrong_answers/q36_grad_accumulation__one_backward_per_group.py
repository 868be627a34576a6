"""Wrong: sums a group's losses and calls backward once, keeping every graph of the group alive."""

import torch.nn.functional as F


def train_accumulated(model, batches, optimizer, accum_steps, loss_fn=F.mse_loss):
    if accum_steps < 1:
        raise ValueError("accum_steps must be >= 1")
    losses = []
    optimizer.zero_grad()
    for start in range(0, len(batches), accum_steps):
        group = batches[start : start + accum_steps]
        size = sum(x.shape[0] for x, _ in group)
        total = sum(loss_fn(model(x), y) * (x.shape[0] / size) for x, y in group)
        total.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(total.item())
    return losses
