"""Wrong: the non-finite message names both NaN and inf, whichever was found."""

import torch

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    first_nonfinite_module,
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch as _reference,
)


def validate_batch(inputs, labels, num_classes, feature_shape):
    well_formed = (
        inputs.is_floating_point()
        and tuple(inputs.shape[1:]) == tuple(feature_shape)
        and labels.dtype == torch.int64
        and tuple(labels.shape) == (inputs.shape[0],)
    )
    nans, infs = int(inputs.isnan().sum()), int(inputs.isinf().sum())
    if well_formed and inputs.shape[0] and (nans or infs):
        raise ValueError(f"inputs contain {nans} NaN and {infs} inf values")
    _reference(inputs, labels, num_classes, feature_shape)
