"""Wrong: backward(retain_graph=True) and keeps each micro-batch's loss tensor until the group
ends, so every graph of the group stays alive."""

import torch.nn.functional as F


def train_accumulated(model, batches, optimizer, accum_steps, loss_fn=F.mse_loss):
    if accum_steps < 1:
        raise ValueError(f"accum_steps must be >= 1, got {accum_steps}")
    losses = []
    optimizer.zero_grad()
    for start in range(0, len(batches), accum_steps):
        group = batches[start : start + accum_steps]
        group_size = sum(inputs.shape[0] for inputs, _ in group)
        group_losses = []
        for inputs, targets in group:
            loss = loss_fn(model(inputs), targets) * (inputs.shape[0] / group_size)
            loss.backward(retain_graph=True)  # the graph stays alive while loss is kept
            group_losses.append(loss)
        optimizer.step()
        optimizer.zero_grad()
        losses.append(float(sum(group_losses).detach()))
    return losses
