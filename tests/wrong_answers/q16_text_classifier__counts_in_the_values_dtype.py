"""Wrong: counts the real positions in values' dtype: a float16 count of 70000 is inf."""

import torch

from solutions.q16_text_classifier import TextClassifier  # the rest as in the reference


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    if mask.dtype != torch.bool or mask.shape != values.shape[:2]:
        raise ValueError(
            f"mask must be bool with shape {tuple(values.shape[:2])}, "
            f"got {mask.dtype} {tuple(mask.shape)}"
        )
    keep = mask.unsqueeze(-1)  # [B, T, 1] broadcasts over D
    low_precision = values.dtype in (torch.float16, torch.bfloat16)
    total = torch.where(keep, values, 0).sum(dim=1, dtype=torch.float32 if low_precision else None)
    count = keep.to(values.dtype).sum(dim=1).clamp(min=1)  # a mask of values' dtype
    return (total / count).to(values.dtype)
