"""Wrong: rejects delta == 0 only, so a negative delta gives negative losses."""

import torch

from solutions.q47_custom_loss import FocalLoss
from solutions.q47_custom_loss import HuberFunction as _Reference

__all__ = ["FocalLoss", "HuberFunction"]


class HuberFunction(_Reference):
    @staticmethod
    def forward(ctx, input, target, delta):
        if input.shape != target.shape:
            raise ValueError(f"input and target shapes differ: {input.shape}, {target.shape}")
        if delta == 0:
            raise ValueError("delta must not be 0")
        diff = input - target
        abs_diff = diff.abs()
        loss = torch.where(abs_diff <= delta, 0.5 * diff**2, delta * (abs_diff - 0.5 * delta))
        ctx.save_for_backward(diff)
        ctx.delta = delta
        return loss
