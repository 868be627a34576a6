"""Wrong: checks the labels' dtype before anything about the inputs, so a batch with
integer inputs and float labels gets the labels message."""

import torch

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    first_nonfinite_module,
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch as _reference,
)


def validate_batch(inputs, labels, num_classes, feature_shape):
    if labels.dtype != torch.int64:
        raise TypeError(f"labels must be int64 class indices, got dtype {labels.dtype}")
    _reference(inputs, labels, num_classes, feature_shape)
