"""Wrong: counts the samples in a first pass over the loader, so a loader that can be
iterated only once (a generator) trains on nothing."""


def train_epoch(model, loader, loss_fn, optimizer, device):
    samples = sum(inputs.shape[0] for inputs, _ in loader)
    if samples == 0:
        raise ValueError("the loader yielded no batch")
    model.train()
    total_loss = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * inputs.shape[0]
    return total_loss / samples
