"""Wrong: gives classes that never appear an F1 of 0 and averages over all classes."""

from solutions.q40_eval_metrics import confusion_matrix, evaluate  # the rest as in the reference


def macro_f1(confusion):
    if confusion.sum() == 0:
        raise ValueError("no sample")
    confusion = confusion.float()
    tp = confusion.diagonal()
    denominator = tp + confusion.sum(dim=0) + confusion.sum(dim=1) - tp
    return (2 * tp / denominator.clamp(min=1)).mean()
