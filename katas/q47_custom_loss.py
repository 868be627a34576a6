"""Kata 47: custom losses.

A loss built from differentiable torch operations needs no backward of its own: autograd
differentiates it. Write it as an `nn.Module` so it takes its settings once and is used
like the built-in losses. The focal loss is such a loss: cross-entropy multiplied by
(1 - p_t)^gamma, where p_t is the predicted probability of the true class, so that easy,
confidently right examples count less and training concentrates on the hard ones.

When autograd cannot do the job, or its graph would cost too much memory, you write the
gradient yourself in a `torch.autograd.Function`: `forward` computes the value (autograd
is off inside it) and stores what is needed with `ctx.save_for_backward`; `backward`
receives the gradient of the final loss with respect to the output and returns one
gradient per input of forward (None for non-tensor inputs). `torch.autograd.gradcheck`
compares such a backward with finite differences, in float64.

Task: `FocalLoss` as a module, and the Huber loss as an autograd Function with its own
backward.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

import torch
from torch import nn


class FocalLoss(nn.Module):
    """Multi-class focal loss: -(1 - p_t)^gamma * log(p_t) per sample.

    Constructor: `FocalLoss(gamma=2.0, reduction="mean")`. Raises ValueError if
    gamma < 0 or reduction is not exactly "mean", "sum" or "none" (no other case or
    spacing; a NaN gamma is not asked about: raising or not is accepted). The module has
    no parameters (gamma is a setting, not something to train: `parameters()` is empty),
    and forward keeps nothing of a call on it: a tensor of the call left on the module (p_t
    for logging, the last loss) holds that call's graph until the next one.

    forward(logits, target):
    - logits: [N, C] floating, unnormalised scores, any device, possibly non-contiguous;
      target: [N] int64 class indices in [0, C), on the same device.
    - log p_t is the log-softmax of the sample's logits at its target class, computed
      stably: finite for logits as large as ±1e4 (never take the log of a softmax);
      p_t = exp(log p_t).
    - The per-sample loss is -(1 - p_t)^gamma * log p_t; "none" returns these ([N]),
      "mean" their mean and "sum" their sum (0-dim), all in logits' dtype and device,
      with gamma's full value (float64 logits do not see a gamma rounded to float32).
      (The "mean" of an empty batch, N = 0, is not asked about: nan or 0 is accepted.)
    - gamma = 0 gives the cross-entropy of F.cross_entropy, to float round-off: the same
      formula, though a "mean" or "sum" may differ from F.cross_entropy's in the last bits
      (another summation order), so it is not bit for bit.
    - Differentiable with respect to logits by autograd, with finite gradients for every
      finite input, also for a confidently correct sample (p_t rounds to 1), where
      (1 - p_t)^gamma has an infinite derivative for gamma < 1: the gradient there is
      (about) 0, not nan. For margins up to 10 (the target's logit above the others by
      at most 10), the gradient is the true one, the power's derivative included, accurate
      relative to its size (to a few percent in float32; beyond that margin the dtype's
      own rounding of log p_t sets the accuracy, and only finiteness is asked). logits and
      target are not modified.

    Rules: no Python loops over samples or classes.

    >>> logits = torch.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    >>> FocalLoss(gamma=2.0, reduction="none")(logits, torch.tensor([0, 0]))
    tensor([0.0109, 1.7879])
    """

    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        # TODO: super().__init__(), validate and store the settings.
        raise NotImplementedError

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        # TODO: log-softmax, pick the target's column, weight, reduce.
        raise NotImplementedError


class HuberFunction(torch.autograd.Function):
    """The elementwise Huber loss, with a backward written by hand.

    Call it as `HuberFunction.apply(input, target, delta)`:
    - input and target: floating tensors of the same shape, dtype and device (any shape,
      empty included); delta: a Python float > 0. Raises ValueError if the shapes differ
      (as shapes: (2, 3) and (3, 2) differ though their sizes agree, and a target that
      would broadcast, (3,) against (2, 3), differs too) or delta <= 0 (negative included;
      a NaN delta is not asked about).
    - Output, of input's shape: with d = input - target,
      `0.5 * d**2` where |d| <= delta and `delta * (|d| - 0.5 * delta)` elsewhere
      (the values of F.huber_loss(..., reduction="none", delta=delta)). Where |d| > delta
      the loss is finite whenever its value is, near the top of the dtype's range too,
      though delta × |d| alone may overflow there. (Inside the band, where d**2 itself
      overflows and 0.5 * d**2 would not, inf or the finite value are both accepted.)
    - backward(grad_output) returns (grad_input, grad_target, None):
      dloss/dinput = clamp(d, -delta, delta), dloss/dtarget = -clamp(d, -delta, delta),
      each times grad_output; None for delta. It may return None for an input that
      needs no gradient (ctx.needs_input_grad).
    - The output's grad_fn is this Function's backward node (HuberFunctionBackward).
    - backward works from the values forward saw: if the caller changes input or target
      in place between forward and backward, it gives the gradient at the forward's
      values or raises (as ctx.save_for_backward does); never a gradient at new values.

    Rules: compute both directions yourself: do not call F.huber_loss or
    F.smooth_l1_loss, and write backward's gradient out: running autograd inside backward
    (torch.autograd.grad, .backward(), torch.func) to differentiate the forward again is
    refused.

    >>> x = torch.tensor([0.5, 3.0], requires_grad=True)
    >>> loss = HuberFunction.apply(x, torch.zeros(2), 1.0)
    >>> loss.detach(), torch.autograd.grad(loss.sum(), x)[0]
    (tensor([0.1250, 2.5000]), tensor([0.5000, 1.0000]))
    """

    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx,
        input: torch.Tensor,
        target: torch.Tensor,
        delta: float,
    ) -> torch.Tensor:
        # TODO: validate, compute the loss, save what backward needs.
        raise NotImplementedError

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad_output: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, None]:
        # TODO: the clamped difference times grad_output, with opposite signs.
        raise NotImplementedError
