"""Wrong: goes over the loader once to count the samples and again to evaluate, so a
generator (read once) comes back empty the second time."""

import torch

from solutions.q40_eval_metrics import confusion_matrix, macro_f1


def evaluate(model, loader, num_classes, device):
    total = sum(len(targets) for _, targets in loader)
    if total == 0:
        raise ValueError("the loader yielded no sample")
    modes = {module: module.training for module in model.modules()}
    model.eval()
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    try:
        with torch.no_grad():
            for inputs, targets in loader:
                preds = model(inputs.to(device)).argmax(dim=1)
                confusion += confusion_matrix(preds, targets.to(device), num_classes)
    finally:
        for module, training in modes.items():
            module.training = training
    accuracy = int(confusion.diagonal().sum()) / total
    return accuracy, confusion, macro_f1(confusion).item()
