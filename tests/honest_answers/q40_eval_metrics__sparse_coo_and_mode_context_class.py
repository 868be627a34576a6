"""A sparse COO tensor whose coalescing sums the duplicate (target, prediction) pairs, float64
F1 arithmetic with a boolean-mask mean, and a class-based context manager that records and
restores every submodule's mode around an inference_mode block."""

from collections.abc import Iterable

import torch
from torch import nn


def _labels(x: torch.Tensor, name: str, num_classes: int) -> torch.Tensor:
    if x.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(x.shape)}")
    wide = x.to(torch.int64)
    if bool(((wide < 0) | (wide >= num_classes)).any()):
        raise ValueError(f"{name} holds a value outside [0, {num_classes})")
    return wide


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    if preds.ndim == 1 and targets.ndim == 1 and preds.shape != targets.shape:
        raise ValueError(f"{preds.numel()} predictions for {targets.numel()} targets")
    p = _labels(preds, "preds", num_classes)
    t = _labels(targets, "targets", num_classes)
    counts = torch.sparse_coo_tensor(
        torch.stack([t, p]),
        torch.ones_like(t),
        (num_classes, num_classes),
        device=t.device,  # the labels' device, whatever torch's default device is
    )
    return counts.to_dense()


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    c = confusion.to(torch.int64).to(torch.float64)
    if not bool(c.any()):
        raise ValueError("the confusion matrix holds no sample")
    tp = c.diagonal()
    denom = c.sum(dim=0) + c.sum(dim=1)  # 2 TP + FP + FN
    present = denom > 0
    f1 = 2 * tp[present] / denom[present]
    return f1.mean().to(torch.float32)


class _EvalModes:
    """Every submodule in eval inside the block; each one's own mode back after it."""

    def __init__(self, model: nn.Module) -> None:
        self.model = model
        self.saved: list[tuple[nn.Module, bool]] = []

    def __enter__(self) -> None:
        self.saved = [(m, m.training) for m in self.model.modules()]
        self.model.eval()

    def __exit__(self, *exc_info: object) -> None:  # an error propagates: nothing returned
        for module, mode in self.saved:
            module.training = mode


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    total = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=device)
    with _EvalModes(model), torch.inference_mode():
        for inputs, targets in loader:
            logits = model(inputs.to(device))
            total += confusion_matrix(logits.argmax(dim=-1), targets.to(device), num_classes)
    total = total.clone()  # updated in the block, but made outside it: an ordinary tensor
    seen = int(total.sum())
    if seen == 0:
        raise ValueError("the loader yielded no sample")
    accuracy = int(total.trace()) / seen
    return accuracy, total, float(macro_f1(total))
