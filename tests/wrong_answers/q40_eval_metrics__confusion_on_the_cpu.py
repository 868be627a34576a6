"""Wrong: evaluate starts the confusion matrix with torch.zeros on the CPU and adds each
batch's matrix from the device to it."""

from collections.abc import Iterable

import torch
from torch import nn

from solutions.q40_eval_metrics import confusion_matrix, macro_f1  # the rest as in the reference


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    was_training = model.training
    model.eval()
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64)
    try:
        with torch.no_grad():  # no graph: less memory, and nothing to backpropagate here
            for inputs, targets in loader:
                preds = model(inputs.to(device)).argmax(dim=1)
                confusion += confusion_matrix(preds, targets.to(device), num_classes)
    finally:
        model.train(was_training)  # hand the model back as it came, even after an error
    total = int(confusion.sum())
    if total == 0:
        raise ValueError("the loader yielded no sample")
    # Metrics from the summed counts weight every sample equally, whatever the batch sizes.
    accuracy = int(confusion.diagonal().sum()) / total
    return accuracy, confusion, macro_f1(confusion).item()
