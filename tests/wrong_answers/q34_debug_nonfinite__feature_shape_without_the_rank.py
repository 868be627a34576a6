"""Wrong: compares only inputs.shape[1:] with the feature shape, so a 0-dim input with
feature_shape () passes the shape check and then fails with an IndexError."""

import torch

from solutions.q34_debug_nonfinite import first_nonfinite_module

__all__ = ["first_nonfinite_module", "validate_batch"]


def validate_batch(inputs, labels, num_classes, feature_shape):
    if not inputs.is_floating_point():
        raise TypeError(f"inputs must be floating point, got dtype {inputs.dtype}")
    if tuple(inputs.shape[1:]) != tuple(feature_shape):
        raise ValueError(
            f"inputs should have feature shape {feature_shape}, got shape {tuple(inputs.shape)}"
        )
    batch = inputs.shape[0]
    if batch == 0:
        raise ValueError("the batch is empty (0 samples)")
    if labels.dtype != torch.int64:
        raise TypeError(f"labels must be int64 class indices, got dtype {labels.dtype}")
    if tuple(labels.shape) != (batch,):
        raise ValueError(f"labels should have shape ({batch},), got shape {tuple(labels.shape)}")
    nans, infs = int(inputs.isnan().sum()), int(inputs.isinf().sum())
    if nans or infs:
        found = [f"{n} {kind}" for n, kind in ((nans, "NaN"), (infs, "inf")) if n]
        raise ValueError(f"inputs contain {' and '.join(found)} values")
    bad = labels[(labels < 0) | (labels >= num_classes)]
    if bad.numel():
        raise ValueError(
            f"labels must be class indices in [0, {num_classes}), found {bad[0].item()}"
        )
