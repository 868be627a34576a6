"""Correct: model.zero_grad(), per-batch (loss, count) pairs summed with math.fsum."""

import math


def train_epoch(model, loader, loss_fn, optimizer, device):
    model.train(True)
    weighted, counts = [], []
    for batch in loader:
        inputs, targets = (t.to(device) for t in batch)
        model.zero_grad(set_to_none=True)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        n = inputs.size(0)
        weighted.append(float(loss.detach().cpu()) * n)
        counts.append(n)
    total = sum(counts)
    if total == 0:
        raise ValueError("the loader yielded no sample")
    return math.fsum(weighted) / total
