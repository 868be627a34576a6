"""Wrong: the hooks only keep each output, checked after the forward pass, so a later
in-place op (x.reciprocal_(), x.nan_to_num_()) changes what an earlier module seems to
have returned."""

import torch

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    _has_nonfinite,
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch,
)


def first_nonfinite_module(model, x):
    outputs = []

    def make_hook(name):
        def hook(module, args, output):
            outputs.append((name, output))

        return hook

    handles = [m.register_forward_hook(make_hook(name)) for name, m in model.named_modules()]
    try:
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return next((name for name, output in outputs if _has_nonfinite(output)), None)
