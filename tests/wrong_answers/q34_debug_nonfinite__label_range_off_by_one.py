"""Wrong: accepts a label equal to num_classes (checks labels > num_classes)."""

import torch

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    first_nonfinite_module,
    nan_born_in_backward,
    overfit_one_batch,
)


def validate_batch(inputs, labels, num_classes, feature_shape):
    if not inputs.is_floating_point():
        raise TypeError(f"inputs must be floating point, got dtype {inputs.dtype}")
    if tuple(inputs.shape[1:]) != tuple(feature_shape) or inputs.dim() != 1 + len(feature_shape):
        raise ValueError(f"inputs have the wrong shape {tuple(inputs.shape)}")
    if inputs.shape[0] == 0:
        raise ValueError("the batch is empty")
    if labels.dtype != torch.int64:
        raise TypeError(f"labels must be int64, got dtype {labels.dtype}")
    if tuple(labels.shape) != (inputs.shape[0],):
        raise ValueError(f"labels have the wrong shape {tuple(labels.shape)}")
    if not torch.isfinite(inputs).all():
        raise ValueError("inputs contain NaN or inf values")
    if labels.min() < 0 or labels.max() > num_classes:
        raise ValueError(f"labels out of range: min {labels.min()}, max {labels.max()}")
