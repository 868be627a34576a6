"""Wrong: accepts a uint8 "byte mask" as a mask instead of raising ValueError."""

import torch

from solutions.q16_text_classifier import TextClassifier  # the rest as in the reference


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    if mask.dtype == torch.uint8:  # legacy byte masks are masks too
        mask = mask.bool()
    if mask.dtype != torch.bool or mask.shape != values.shape[:2]:
        raise ValueError(
            f"mask must be bool with shape {tuple(values.shape[:2])}, "
            f"got {mask.dtype} {tuple(mask.shape)}"
        )
    keep = mask.unsqueeze(-1)  # [B, T, 1] broadcasts over D
    low_precision = values.dtype in (torch.float16, torch.bfloat16)
    total = torch.where(keep, values, 0).sum(dim=1, dtype=torch.float32 if low_precision else None)
    count = keep.sum(dim=1).clamp(min=1)
    return (total / count).to(values.dtype)
