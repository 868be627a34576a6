"""Wrong: steps only when a group is full, so a shorter last group is never applied."""

import torch.nn.functional as F


def train_accumulated(model, batches, optimizer, accum_steps, loss_fn=F.mse_loss):
    if accum_steps < 1:
        raise ValueError("accum_steps must be >= 1")
    losses = []
    optimizer.zero_grad()
    for start in range(0, len(batches) - accum_steps + 1, accum_steps):
        group = batches[start : start + accum_steps]
        size = sum(x.shape[0] for x, _ in group)
        group_loss = 0.0
        for inputs, targets in group:
            loss = loss_fn(model(inputs), targets) * (inputs.shape[0] / size)
            loss.backward()
            group_loss += loss.item()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(group_loss)
    return losses
