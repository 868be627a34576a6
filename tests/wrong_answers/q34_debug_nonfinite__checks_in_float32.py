"""Wrong: converts each output to float32 before checking it, so a finite float64 value
above 3.4e38 counts as inf."""

import torch

from solutions.q34_debug_nonfinite import validate_batch

__all__ = ["first_nonfinite_module", "validate_batch"]


def _has_nonfinite(output):
    if isinstance(output, torch.Tensor):
        return not bool(torch.isfinite(output.float()).all())
    if isinstance(output, dict):
        return any(_has_nonfinite(value) for value in output.values())
    if isinstance(output, (list, tuple)):
        return any(_has_nonfinite(item) for item in output)
    return False


def first_nonfinite_module(model, x):
    found = []

    def make_hook(name):
        def hook(module, args, output):
            if not found and _has_nonfinite(output):
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
