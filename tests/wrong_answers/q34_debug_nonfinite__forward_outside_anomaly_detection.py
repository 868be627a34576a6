"""Wrong: runs compute_loss before switching anomaly detection on, so no forward trace."""

import re

import torch

from solutions.q34_debug_nonfinite import first_nonfinite_module, overfit_one_batch, validate_batch


def nan_born_in_backward(compute_loss):
    loss = compute_loss()
    if not torch.isfinite(loss).all():
        raise ValueError("the loss is already non-finite: the NaN comes from the forward")
    with torch.autograd.detect_anomaly():
        try:
            loss.backward()
        except RuntimeError as error:
            found = re.search(r"Function '(\w+)' returned nan values", str(error))
            if found is None:
                raise
            return found.group(1)
    return None
