"""Wrong: switches to eval mode and never switches back, so training goes on in eval mode."""

import torch

from solutions.q40_eval_metrics import confusion_matrix, macro_f1  # the rest as in the reference


def evaluate(model, loader, num_classes, device):
    model.eval()
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    with torch.no_grad():
        for inputs, targets in loader:
            preds = model(inputs.to(device)).argmax(dim=1)
            confusion += confusion_matrix(preds, targets.to(device), num_classes)
    total = int(confusion.sum())
    if total == 0:
        raise ValueError("no sample")
    return int(confusion.trace()) / total, confusion, macro_f1(confusion).item()
