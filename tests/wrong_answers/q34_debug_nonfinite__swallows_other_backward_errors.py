"""Wrong: returns None for any other RuntimeError of the backward pass instead of raising it."""

import re

import torch

from solutions.q34_debug_nonfinite import first_nonfinite_module, overfit_one_batch, validate_batch


def nan_born_in_backward(compute_loss):
    with torch.autograd.detect_anomaly():
        loss = compute_loss()
        if not torch.isfinite(loss).all():
            raise ValueError("the loss is already non-finite: the NaN comes from the forward")
        try:
            loss.backward()
        except RuntimeError as error:
            found = re.search(r"Function '(\w+)' returned nan values", str(error))
            return found.group(1) if found else None
    return None
