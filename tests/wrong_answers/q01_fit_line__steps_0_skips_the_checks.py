"""Wrong: returns the starting point for steps=0 before checking x and y, so mismatched
shapes pass unnoticed when no step is taken."""

import torch

from solutions.q01_fit_line import fit_line as reference


def fit_line(x, y, steps=100, lr=0.1):
    if steps == 0:
        zero = torch.zeros((), dtype=x.dtype, device=x.device)
        return zero, zero.clone()
    return reference(x, y, steps, lr)
