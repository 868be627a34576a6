"""Wrong: takes "floating point" to mean float32 or float64, so float16 and bfloat16
batches are refused."""

import torch

from solutions.q34_debug_nonfinite import first_nonfinite_module
from solutions.q34_debug_nonfinite import validate_batch as _reference

__all__ = ["first_nonfinite_module", "validate_batch"]


def validate_batch(inputs, labels, num_classes, feature_shape):
    if inputs.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"inputs must be floating point, got dtype {inputs.dtype}")
    _reference(inputs, labels, num_classes, feature_shape)
