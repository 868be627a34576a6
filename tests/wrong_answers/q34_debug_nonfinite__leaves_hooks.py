"""Wrong: registers the hooks but never removes them."""

import torch

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    _has_nonfinite,
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch,
)


def first_nonfinite_module(model, x):
    found = []

    def make_hook(name):
        def hook(module, args, output):
            if not found and _has_nonfinite(output):
                found.append(name)

        return hook

    for name, m in model.named_modules():
        m.register_forward_hook(make_hook(name))
    with torch.no_grad():
        model(x)
    return found[0] if found else None
