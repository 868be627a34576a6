"""Counts by a two-dimensional index_put_ with accumulate, macro-F1 as a nanmean over nan-marked
absent classes, and the evaluation under inference_mode inside a context manager that puts
back every submodule's mode."""

import contextlib
from collections.abc import Iterable, Iterator

import torch
from torch import nn


def _check_labels(name: str, values: torch.Tensor, num_classes: int) -> None:
    if values.dim() != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(values.shape)}")
    # int64 first: torch has no comparisons for uint16, uint32 and uint64.
    wide = values.long()
    if bool(((wide < 0) | (wide >= num_classes)).any()):
        raise ValueError(f"{name} must lie in [0, {num_classes})")


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    _check_labels("preds", preds, num_classes)
    _check_labels("targets", targets, num_classes)
    if preds.shape != targets.shape:
        raise ValueError(f"preds and targets differ in length: {len(preds)} and {len(targets)}")
    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=targets.device)
    ones = torch.ones_like(targets, dtype=torch.int64)
    return counts.index_put_((targets.long(), preds.long()), ones, accumulate=True)


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    if not bool(confusion.any()):
        raise ValueError("the confusion matrix holds no sample")
    tp = confusion.diagonal().to(torch.float32)
    # 2 TP + FP + FN is the row sum plus the column sum.
    denominator = (confusion.sum(dim=0) + confusion.sum(dim=1)).to(torch.float32)
    f1 = torch.where(denominator > 0, 2 * tp / denominator, torch.nan)
    return torch.nanmean(f1)


@contextlib.contextmanager
def _evaluating(model: nn.Module) -> Iterator[None]:
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        with torch.inference_mode():
            yield
    finally:
        for module, training in modes:
            module.training = training


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    with _evaluating(model):
        for inputs, targets in loader:
            logits = model(inputs.to(device))
            confusion += confusion_matrix(logits.argmax(dim=1), targets.to(device), num_classes)
    seen = int(confusion.sum())
    if seen == 0:
        raise ValueError("the loader yielded no sample")
    accuracy = int(confusion.trace()) / seen
    return accuracy, confusion, float(macro_f1(confusion))
