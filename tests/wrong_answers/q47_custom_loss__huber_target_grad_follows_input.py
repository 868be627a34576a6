"""Wrong: backward decides both gradients by whether the input needs one, so a target that
requires grad next to an input that does not gets no gradient."""

from solutions.q47_custom_loss import (  # the rest as in the reference
    FocalLoss,
    HuberFunction as _HuberFunction,
)


class HuberFunction(_HuberFunction):
    @staticmethod
    def backward(ctx, grad_output):
        (diff,) = ctx.saved_tensors
        if not ctx.needs_input_grad[0]:
            return None, None, None
        grad = diff.clamp(-ctx.delta, ctx.delta) * grad_output
        return grad, -grad, None
