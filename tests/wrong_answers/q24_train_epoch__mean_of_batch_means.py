"""Wrong: averages the batch losses, so the short last batch counts as much as a full one."""


def train_epoch(model, loader, loss_fn, optimizer, device):
    model.train()
    batch_losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        batch_losses.append(loss.item())
    if not batch_losses:
        raise ValueError("the loader yielded no batch")
    return sum(batch_losses) / len(batch_losses)
