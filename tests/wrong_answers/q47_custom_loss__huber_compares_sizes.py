"""Wrong: compares the numbers of elements of input and target, not their shapes, and
reshapes the target to fit."""

import torch

from solutions.q47_custom_loss import FocalLoss
from solutions.q47_custom_loss import HuberFunction as _Reference

__all__ = ["FocalLoss", "HuberFunction"]


class HuberFunction(_Reference):
    @staticmethod
    def forward(ctx, input, target, delta):
        if input.numel() != target.numel():
            raise ValueError(f"input and target differ in size: {input.shape}, {target.shape}")
        if delta <= 0:
            raise ValueError(f"delta must be > 0, got {delta}")
        diff = input - target.reshape(input.shape)
        abs_diff = diff.abs()
        loss = torch.where(abs_diff <= delta, 0.5 * diff**2, delta * (abs_diff - 0.5 * delta))
        ctx.save_for_backward(diff)
        ctx.delta = delta
        return loss
