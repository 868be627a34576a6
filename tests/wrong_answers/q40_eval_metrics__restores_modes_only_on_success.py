"""Wrong: restores the modes after the loop without a finally block, so a model that raises
is left in eval mode."""

import torch

from solutions.q40_eval_metrics import confusion_matrix, macro_f1


def evaluate(model, loader, num_classes, device):
    modes = {module: module.training for module in model.modules()}
    model.eval()
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    with torch.no_grad():
        for inputs, targets in loader:
            preds = model(inputs.to(device)).argmax(dim=1)
            confusion += confusion_matrix(preds, targets.to(device), num_classes)
    for module, training in modes.items():
        module.training = training
    total = int(confusion.sum())
    if total == 0:
        raise ValueError("the loader yielded no sample")
    accuracy = int(confusion.diagonal().sum()) / total
    return accuracy, confusion, macro_f1(confusion).item()
