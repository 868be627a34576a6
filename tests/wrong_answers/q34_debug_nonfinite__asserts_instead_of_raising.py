"""Wrong: checks with assert statements (AssertionError, gone under python -O)."""

import torch

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    first_nonfinite_module,
    nan_born_in_backward,
    overfit_one_batch,
)


def validate_batch(inputs, labels, num_classes, feature_shape):
    assert inputs.is_floating_point(), f"inputs must be floating point, got {inputs.dtype}"
    assert tuple(inputs.shape[1:]) == tuple(feature_shape), (
        f"inputs have the wrong shape {tuple(inputs.shape)}"
    )
    assert inputs.shape[0] > 0, "the batch is empty"
    assert labels.dtype == torch.int64, f"labels must be int64, got {labels.dtype}"
    assert tuple(labels.shape) == (inputs.shape[0],), (
        f"labels have the wrong shape {tuple(labels.shape)}"
    )
    assert torch.isfinite(inputs).all(), "inputs contain NaN or inf values"
    assert ((labels >= 0) & (labels < num_classes)).all(), "labels out of range"
