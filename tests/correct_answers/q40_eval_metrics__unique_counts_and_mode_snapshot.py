"""Correct: pairs counted with torch.unique(return_counts=True) and written into a flat
matrix, F1 by torch.where over the classes present, the modes kept as a snapshot dict."""

import torch


def confusion_matrix(preds, targets, num_classes):
    if preds.dim() != 1 or targets.dim() != 1:
        raise ValueError(
            f"preds and targets must be 1-D, got {preds.dim()}-D and {targets.dim()}-D"
        )
    if preds.shape[0] != targets.shape[0]:
        raise ValueError(f"{preds.shape[0]} predictions for {targets.shape[0]} targets")
    both = torch.cat([preds, targets]).long()
    if both.numel() and (int(both.min()) < 0 or int(both.max()) >= num_classes):
        raise ValueError(f"class indices must lie in [0, {num_classes})")
    flat = torch.zeros(num_classes * num_classes, dtype=torch.int64, device=preds.device)
    pairs, counts = torch.unique(targets.long() * num_classes + preds.long(), return_counts=True)
    flat[pairs] = counts
    return flat.view(num_classes, num_classes)


def macro_f1(confusion):
    counts = confusion.long()
    if not bool(counts.any()):
        raise ValueError("the confusion matrix holds no sample")
    tp = counts.diagonal()
    denominator = counts.sum(0) + counts.sum(1)  # 2 TP + FP + FN
    present = denominator > 0
    f1 = torch.where(present, 2 * tp / denominator.clamp(min=1), 0)
    return (f1.sum() / present.sum()).to(torch.float32)


def evaluate(model, loader, num_classes, device):
    modes = {module: module.training for module in model.modules()}
    total = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    model.eval()
    try:
        with torch.no_grad():
            for inputs, targets in loader:
                preds = model(inputs.to(device)).argmax(dim=1)
                total += confusion_matrix(preds, targets.to(device), num_classes)
    finally:
        for module, training in modes.items():
            module.train(training)  # modules() lists parents before children
    seen = int(total.sum())
    if seen == 0:
        raise ValueError("the loader yielded no sample")
    return int(total.trace()) / seen, total, float(macro_f1(total))
