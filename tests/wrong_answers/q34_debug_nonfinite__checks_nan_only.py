"""Wrong: looks for NaN with torch.isnan only, so a layer that overflows to inf goes unseen."""

import torch

from solutions.q34_debug_nonfinite import (  # the rest as in the reference
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch,
)


def _has_nan(output):
    if isinstance(output, torch.Tensor):
        return bool(torch.isnan(output).any())
    if isinstance(output, dict):
        return any(_has_nan(value) for value in output.values())
    if isinstance(output, (list, tuple)):
        return any(_has_nan(item) for item in output)
    return False


def first_nonfinite_module(model, x):
    found = []

    def make_hook(name):
        def hook(module, args, output):
            if not found and _has_nan(output):
                found.append(name)

        return hook

    handles = [m.register_forward_hook(make_hook(name)) for name, m in model.named_modules()]
    try:
        with torch.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return found[0] if found else None
