"""Wrong: runs the model in eval mode and then restores the model's own mode with
model.train(was), so a submodule that was in eval mode comes back in training mode."""

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    first_nonfinite_module as _reference,
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch,
)


def first_nonfinite_module(model, x):
    was_training = model.training
    model.eval()
    try:
        return _reference(model, x)
    finally:
        model.train(was_training)
