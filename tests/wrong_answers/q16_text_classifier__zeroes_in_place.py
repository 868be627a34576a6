"""Wrong: zeroes the padded positions with masked_fill_, in place, overwriting the
caller's values (and failing outright on a leaf tensor that requires grad)."""

import torch

from solutions.q16_text_classifier import TextClassifier  # the rest as in the reference


def masked_mean(values, mask):
    if mask.dtype != torch.bool or mask.shape != values.shape[:2]:
        raise ValueError("mask must be bool with shape values.shape[:2]")
    values.masked_fill_(~mask.unsqueeze(-1), 0)
    return values.sum(dim=1) / mask.sum(dim=1, keepdim=True).clamp(min=1)
