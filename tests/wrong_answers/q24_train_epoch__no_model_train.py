"""Wrong: never calls model.train(), so a model that arrives in eval mode trains in eval mode."""


def train_epoch(model, loader, loss_fn, optimizer, device):
    total_loss, total_samples = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * inputs.shape[0]
        total_samples += inputs.shape[0]
    if total_samples == 0:
        raise ValueError("the loader yielded no batch")
    return total_loss / total_samples
