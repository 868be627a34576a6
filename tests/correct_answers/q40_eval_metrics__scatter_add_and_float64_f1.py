"""Correct: counts by scatter_add_ on a flat table, F1 in float64 with nanmean, the modes
kept flag by flag in a list, the loop under inference_mode."""

import torch


def confusion_matrix(preds, targets, num_classes):
    if preds.ndim != 1 or targets.ndim != 1:
        raise ValueError("preds and targets must be 1-D")
    if preds.numel() != targets.numel():
        raise ValueError("preds and targets differ in length")
    p, t = preds.to(torch.int64), targets.to(torch.int64)
    bad = (p < 0) | (p >= num_classes) | (t < 0) | (t >= num_classes)
    if bool(bad.any()):
        raise ValueError("a class index is out of range")
    table = torch.zeros(num_classes * num_classes, dtype=torch.int64, device=preds.device)
    table.scatter_add_(0, t * num_classes + p, torch.ones_like(p))
    return table.view(num_classes, num_classes)


def macro_f1(confusion):
    counts = confusion.to(torch.float64)
    if not bool(counts.any()):
        raise ValueError("no sample in the confusion matrix")
    tp = torch.diagonal(counts)
    denominator = counts.sum(0) + counts.sum(1)  # = 2 TP + FP + FN
    scores = torch.where(denominator > 0, 2 * tp / denominator.clamp_min(1), torch.nan)
    return scores.nanmean().to(torch.float32)


def evaluate(model, loader, num_classes, device):
    modules = list(model.modules())
    flags = [m.training for m in modules]
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    try:
        for m in modules:
            m.training = False
        with torch.inference_mode():
            for inputs, targets in loader:
                logits = model(inputs.to(device))
                confusion = confusion + confusion_matrix(
                    logits.max(dim=-1).indices, targets.to(device), num_classes
                )
    finally:
        for m, flag in zip(modules, flags):
            m.training = flag
    confusion = confusion.clone()  # a normal tensor, not an inference one
    seen = confusion.sum().item()
    if seen == 0:
        raise ValueError("the loader yielded no sample")
    return confusion.trace().item() / seen, confusion, macro_f1(confusion).item()
