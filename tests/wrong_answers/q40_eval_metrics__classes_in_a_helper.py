"""Wrong: scores one class at a time in a helper function, a Python loop over the classes."""

import torch

from solutions.q40_eval_metrics import confusion_matrix, evaluate


def f1_per_class(confusion):
    scores = []
    for c in range(len(confusion)):
        tp = confusion[c, c]
        denominator = confusion[c].sum() + confusion[:, c].sum()
        if denominator > 0:
            scores.append(2 * tp / denominator)
    return torch.stack(scores)


def macro_f1(confusion):
    if confusion.sum() == 0:
        raise ValueError("the confusion matrix holds no sample")
    return f1_per_class(confusion.float()).mean()
