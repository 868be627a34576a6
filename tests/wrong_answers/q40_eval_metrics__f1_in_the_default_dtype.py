"""Wrong: macro_f1 divides the integer counts directly, so the result has the default float
dtype (float64 when that is the default) instead of float32."""

from solutions.q40_eval_metrics import confusion_matrix, evaluate  # the rest as in the reference


def macro_f1(confusion):
    if confusion.sum() == 0:
        raise ValueError("the confusion matrix holds no sample")
    tp = confusion.diagonal()
    denominator = confusion.sum(dim=0) + confusion.sum(dim=1)
    present = denominator > 0
    return (2 * tp[present] / denominator[present]).mean()
