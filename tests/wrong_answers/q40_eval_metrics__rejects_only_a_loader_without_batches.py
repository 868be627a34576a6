"""Wrong: raises ValueError only when the loader yields no batch, so a loader of empty
batches ends in a ZeroDivisionError."""

import torch

from solutions.q40_eval_metrics import confusion_matrix, macro_f1

__all__ = ["confusion_matrix", "evaluate", "macro_f1"]


def evaluate(model, loader, num_classes, device):
    modes = {module: module.training for module in model.modules()}
    model.eval()
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    batches = 0
    try:
        with torch.no_grad():
            for inputs, targets in loader:
                batches += 1
                preds = model(inputs.to(device)).argmax(dim=1)
                confusion += confusion_matrix(preds, targets.to(device), num_classes)
    finally:
        for module, training in modes.items():
            module.training = training
    if batches == 0:
        raise ValueError("the loader yielded no batch")
    accuracy = int(confusion.diagonal().sum()) / int(confusion.sum())
    return accuracy, confusion, macro_f1(confusion).item()
