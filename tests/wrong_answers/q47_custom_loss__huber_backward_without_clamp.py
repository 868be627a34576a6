"""Wrong: the Huber backward returns d * grad_output everywhere, the slope of 0.5 d² alone."""

import torch

from solutions.q47_custom_loss import FocalLoss  # the rest as in the reference


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, target, delta):
        if input.shape != target.shape or delta <= 0:
            raise ValueError("bad arguments")
        diff = input - target
        ctx.save_for_backward(diff)
        return torch.where(diff.abs() <= delta, 0.5 * diff**2, delta * (diff.abs() - 0.5 * delta))

    @staticmethod
    def backward(ctx, grad_output):
        (diff,) = ctx.saved_tensors
        return diff * grad_output, -diff * grad_output, None
