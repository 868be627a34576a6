"""Wrong: evaluates with autograd on, recording a graph for every batch for nothing."""

import torch

from solutions.q40_eval_metrics import confusion_matrix, macro_f1  # the rest as in the reference


def evaluate(model, loader, num_classes, device):
    was_training = model.training
    model.eval()
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    for inputs, targets in loader:
        preds = model(inputs.to(device)).argmax(dim=1)
        confusion += confusion_matrix(preds, targets.to(device), num_classes)
    model.train(was_training)
    total = int(confusion.sum())
    if total == 0:
        raise ValueError("no sample")
    return int(confusion.trace()) / total, confusion, macro_f1(confusion).item()
