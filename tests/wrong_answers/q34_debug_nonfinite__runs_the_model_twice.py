"""Wrong: runs model(x) twice, a plain forward first and then the hooked one."""

import torch

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    first_nonfinite_module as _hooked,
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch,
)


def first_nonfinite_module(model, x):
    with torch.no_grad():
        model(x)  # a warm-up pass, to see that the model runs at all
    return _hooked(model, x)
