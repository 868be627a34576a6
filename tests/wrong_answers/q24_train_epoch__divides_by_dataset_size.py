"""Wrong: divides the summed loss by len(loader.dataset), which counts samples the loader
never yields (drop_last, a sampler over part of the data)."""


def train_epoch(model, loader, loss_fn, optimizer, device):
    model.train()
    total_loss, batches = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * inputs.shape[0]
        batches += 1
    if batches == 0:
        raise ValueError("the loader yielded no batch")
    return total_loss / len(loader.dataset)
