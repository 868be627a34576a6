"""Wrong: a helper loops over the two halves of the time steps, a Python loop however short."""

import torch

from solutions.q16_text_classifier import TextClassifier


def sum_over_time(values):
    # Two iterations whatever the size: the work does not grow, but it is a loop.
    total = values.new_zeros(values.shape[0], values.shape[2])
    for half in values.chunk(2, dim=1):
        total = total + half.sum(dim=1)
    return total


def masked_mean(values, mask):
    if mask.dtype != torch.bool or mask.shape != values.shape[:2]:
        raise ValueError("mask must be bool with the shape of values' first two dimensions")
    keep = mask.unsqueeze(-1)
    total = sum_over_time(torch.where(keep, values, 0))
    count = keep.sum(dim=1).clamp(min=1).to(values.dtype)
    return total / count
