"""Wrong: accepts a target that broadcasts to input's shape, where the shapes must be equal."""

import torch

from solutions.q47_custom_loss import FocalLoss


class HuberFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx,
        input: torch.Tensor,
        target: torch.Tensor,
        delta: float,
    ) -> torch.Tensor:
        try:  # a target that broadcasts to input's shape is fine
            shape = torch.broadcast_shapes(input.shape, target.shape)
        except RuntimeError:
            shape = None
        if shape != input.shape:
            raise ValueError(
                f"input and target must have the same shape, got {tuple(input.shape)} "
                f"and {tuple(target.shape)}"
            )
        if delta <= 0:
            raise ValueError(f"delta must be > 0, got {delta}")
        diff = input - target
        abs_diff = diff.abs()
        loss = torch.where(abs_diff <= delta, 0.5 * diff**2, delta * (abs_diff - 0.5 * delta))
        # Keep only the difference: both gradients are computed from it.
        ctx.save_for_backward(diff)
        ctx.delta = delta
        return loss

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        (diff,) = ctx.saved_tensors
        # Quadratic inside the band (slope d), linear outside (slope ±delta): a clamp.
        grad = diff.clamp(-ctx.delta, ctx.delta) * grad_output
        grad_input = grad if ctx.needs_input_grad[0] else None
        grad_target = -grad if ctx.needs_input_grad[1] else None
        return grad_input, grad_target, None
