"""Wrong: restores the mode with model.train(was_training), which switches a submodule that
arrived in eval (a frozen part) back to training."""

import torch

from solutions.q40_eval_metrics import confusion_matrix, macro_f1  # the rest as in the reference


def evaluate(model, loader, num_classes, device):
    was_training = model.training
    model.eval()
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    try:
        with torch.no_grad():
            for inputs, targets in loader:
                preds = model(inputs.to(device)).argmax(dim=1)
                confusion += confusion_matrix(preds, targets.to(device), num_classes)
    finally:
        model.train(was_training)
    total = int(confusion.sum())
    if total == 0:
        raise ValueError("the loader yielded no sample")
    accuracy = int(confusion.diagonal().sum()) / total
    return accuracy, confusion, macro_f1(confusion).item()
