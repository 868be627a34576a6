"""Wrong: never clears the gradients, so every step also uses all earlier batches' gradients."""


def train_epoch(model, loader, loss_fn, optimizer, device):
    model.train()
    total_loss, total_samples = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * inputs.shape[0]
        total_samples += inputs.shape[0]
    if total_samples == 0:
        raise ValueError("the loader yielded no batch")
    return total_loss / total_samples
