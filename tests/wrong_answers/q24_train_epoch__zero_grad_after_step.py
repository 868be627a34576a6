"""Wrong: clears the gradients at the end of each batch instead of the start, so gradients
left from before the call leak into the first step."""


def train_epoch(model, loader, loss_fn, optimizer, device):
    model.train()
    total_loss, total_samples = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total_loss += loss.item() * inputs.shape[0]
        total_samples += inputs.shape[0]
    if total_samples == 0:
        raise ValueError("the loader yielded no batch")
    return total_loss / total_samples
