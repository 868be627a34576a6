"""Kata 34: find where a NaN comes from, and stop bad batches at the door (reference answer)."""

import torch
from torch import nn


def _has_nonfinite(output) -> bool:
    if isinstance(output, torch.Tensor):
        return not bool(torch.isfinite(output).all())  # catches NaN, inf and -inf
    if isinstance(output, dict):
        return any(_has_nonfinite(value) for value in output.values())
    if isinstance(output, (list, tuple)):
        return any(_has_nonfinite(item) for item in output)
    return False


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    found: list[str] = []

    def make_hook(name: str):
        def hook(module, args, output):
            if not found and _has_nonfinite(output):
                found.append(name)  # keep only the first; hooks fire as modules finish

        return hook

    handles = [m.register_forward_hook(make_hook(name)) for name, m in model.named_modules()]
    try:
        with torch.no_grad():
            model(x)
    finally:
        # Hooks outlive the call unless removed: always take them off, errors or not.
        for handle in handles:
            handle.remove()
    return found[0] if found else None


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    if not inputs.is_floating_point():
        raise TypeError(f"inputs must be floating point, got dtype {inputs.dtype}")
    if inputs.dim() != 1 + len(feature_shape) or tuple(inputs.shape[1:]) != tuple(feature_shape):
        raise ValueError(
            f"inputs should have shape (batch, {', '.join(map(str, feature_shape))}), "
            f"got shape {tuple(inputs.shape)}"
        )
    batch = inputs.shape[0]
    if batch == 0:
        raise ValueError("the batch is empty (0 samples)")
    if labels.dtype != torch.int64:
        raise TypeError(
            f"labels must be int64 class indices, got dtype {labels.dtype}; "
            "convert them with labels.long()"
        )
    if tuple(labels.shape) != (batch,):
        raise ValueError(
            f"labels should have shape ({batch},), one per sample, got shape {tuple(labels.shape)}"
        )
    nans, infs = int(inputs.isnan().sum()), int(inputs.isinf().sum())
    if nans or infs:
        # Name only what is there: a NaN and an inf point to different bugs.
        found = [f"{n} {kind}" for n, kind in ((nans, "NaN"), (infs, "inf")) if n]
        raise ValueError(f"inputs contain {' and '.join(found)} values")
    bad = labels[(labels < 0) | (labels >= num_classes)]
    if bad.numel():
        raise ValueError(
            f"labels must be class indices in [0, {num_classes}), found {bad[0].item()}"
        )
