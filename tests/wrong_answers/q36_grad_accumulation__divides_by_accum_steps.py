"""Wrong: divides every micro-batch loss by accum_steps, wrong for short groups and sizes."""

import torch.nn.functional as F


def train_accumulated(model, batches, optimizer, accum_steps, loss_fn=F.mse_loss):
    if accum_steps < 1:
        raise ValueError("accum_steps must be >= 1")
    losses, group_loss = [], 0.0
    optimizer.zero_grad()
    for i, (inputs, targets) in enumerate(batches):
        loss = loss_fn(model(inputs), targets) / accum_steps
        loss.backward()
        group_loss += loss.item()
        if (i + 1) % accum_steps == 0 or i + 1 == len(batches):
            optimizer.step()
            optimizer.zero_grad()
            losses.append(group_loss)
            group_loss = 0.0
    return losses
