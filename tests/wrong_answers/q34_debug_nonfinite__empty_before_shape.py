"""Wrong: checks for an empty batch before the shape, so an empty batch of the wrong feature
shape gets the "empty" message instead of the shape message."""

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    first_nonfinite_module,
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch as _reference,
)


def validate_batch(inputs, labels, num_classes, feature_shape):
    if inputs.is_floating_point() and inputs.dim() >= 1 and inputs.shape[0] == 0:
        raise ValueError("the batch is empty (0 samples)")
    _reference(inputs, labels, num_classes, feature_shape)
