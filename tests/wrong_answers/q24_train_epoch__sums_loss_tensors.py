"""Wrong: sums the batch losses as tensors and calls .item() only at the end, which keeps
every batch's autograd graph alive until the epoch is over."""


def train_epoch(model, loader, loss_fn, optimizer, device):
    model.train()
    total_loss, total_samples = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total_loss = total_loss + loss * inputs.shape[0]  # a tensor with its graph
        total_samples += inputs.shape[0]
    if total_samples == 0:
        raise ValueError("the loader yielded no batch")
    return (total_loss / total_samples).item()
