"""Wrong: overwrites the name at every non-finite output, so it names the last module."""

import torch

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    _has_nonfinite,
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch,
)


def first_nonfinite_module(model, x):
    found = None

    def make_hook(name):
        def hook(module, args, output):
            nonlocal found
            if _has_nonfinite(output):
                found = name

        return hook

    handles = [m.register_forward_hook(make_hook(name)) for name, m in model.named_modules()]
    try:
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return found
