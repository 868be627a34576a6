"""Wrong: the mean divides by all N samples, ignored ones included, instead of the kept ones."""

from solutions.q13_cross_entropy import cross_entropy as reference


def cross_entropy(logits, target, *, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    per_sample = reference(
        logits, target, ignore_index=ignore_index, label_smoothing=label_smoothing, reduction="none"
    )
    if reduction == "none":
        return per_sample
    return per_sample.sum() if reduction == "sum" else per_sample.mean()
