"""Kata 30: vanishing and exploding gradients.

Backpropagation multiplies one factor per layer on its way back to the input. When those
factors are mostly below 1 (saturated sigmoids, small weights) the gradients of the early
layers shrink towards zero and they stop learning; when they are above 1 (large weights,
long recurrences) the gradients blow up and one step throws the weights far away. The
first thing to do is measure: the gradient norm of every layer after backward. The
classic fix for explosions is gradient-norm clipping: if the norm of all gradients taken
together exceeds `max_norm`, scale them all down by the same factor, so the direction of
the step is kept and only its length is capped (`clip_grad_value_` clips each entry
instead, which changes the direction). The fixes at the root keep each layer's factor
near 1: an initialisation scaled to the layer (Kaiming, Xavier: kata 31), normalisation
layers (kata 46), residual connections (the identity path carries the gradient past a
block), non-saturating activations (ReLU rather than sigmoid in deep stacks: kata 21), and
gated recurrent cells (LSTM, GRU) instead of a plain RNN for long sequences.

Task: per-layer gradient norms, and `clip_grad_norm` written by hand with exactly the
behaviour of `torch.nn.utils.clip_grad_norm_`.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

from collections.abc import Iterable

import torch
from torch import nn


def layer_grad_norms(model: nn.Module) -> dict[str, torch.Tensor]:
    """The 2-norm of each layer's gradient, to see where gradients vanish or explode.

    - A layer is a module that owns parameters itself: `module.parameters(recurse=False)`
      is not empty. Its key is its name in `model.named_modules()` ("" for the model
      itself); keys come in `named_modules()` order. A module that appears twice in the
      model (shared) is one layer, under the one name named_modules() gives it.
    - Its value is the 2-norm of the gradients of its own parameters taken together,
      sqrt(sum over its parameters with a .grad of sum(grad ** 2)): a 0-dim tensor with
      the gradients' dtype, on their device (a float16 layer gets a float16 norm, finite
      wherever the exact norm is, though the squares of its entries may overflow float16).
      A layer whose gradients differ in dtype or device is outside this contract.
    - Parameters whose .grad is None are skipped; a layer where all are None is left out.
      A layer whose gradients are all zero (a dead layer) is kept, with norm 0.
    - Nothing is modified (each .grad stays the same tensor, its graph included) and
      nothing is recorded by autograd.

    >>> model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    >>> model(torch.randn(8, 3)).sum().backward()
    >>> list(layer_grad_norms(model))
    ['0', '2']
    """
    # TODO: walk model.named_modules() and each module's own parameters.
    raise NotImplementedError


def clip_grad_norm(
    parameters: torch.Tensor | Iterable[torch.Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> torch.Tensor:
    """Scale the gradients in place so their total norm is at most `max_norm`.

    Behaves exactly like `torch.nn.utils.clip_grad_norm_` (without its `foreach`):
    - parameters: one tensor or an iterable of tensors (a generator such as
      `model.parameters()` included: it can be iterated only once). Tensors whose .grad
      is None are skipped and their .grad stays None.
    - The total norm is the `norm_type`-norm of all gradients taken together as one long
      vector, which equals the norm of the vector of per-tensor norms. norm_type is a
      float >= 1 or `float("inf")` (the largest absolute value). Half-precision gradients
      give the norm torch gives, finite wherever the exact norm fits the dtype (torch's
      norms accumulate in float32, so squares that overflow float16 do no harm).
    - Every gradient is then multiplied in place (the same .grad tensors, no new ones) by
      `min(max_norm / (total_norm + 1e-6), 1.0)`: gradients are only ever scaled down.
    - Non-finite total norm (a gradient holds inf or nan, or finite gradients whose total
      overflows the dtype, such as two entries of 3e38 in float32): with error_if_nonfinite=True,
      raise RuntimeError and leave every gradient unchanged; otherwise scale anyway, as
      torch does: the factor is 0 for an infinite norm (finite entries become 0, infinite
      ones nan) and nan for a nan norm (every entry becomes nan).
    - The gradients may live on different devices (a model split across devices): the
      per-tensor norms are combined on the first gradient's device, and each gradient is
      scaled where it lives.
    - Returns the total norm from before clipping: a 0-dim tensor with the gradients'
      dtype on the device of the first gradient. With no gradients at all, returns
      `torch.tensor(0.0)` (the default dtype, on the default device), as torch does, and
      changes nothing.

    Rules: compute the norms yourself (torch.linalg.vector_norm is fine); do not call
    torch.nn.utils.clip_grad_norm_, get_total_norm or clip_grads_with_norm_.

    >>> w = torch.zeros(2, requires_grad=True)
    >>> w.grad = torch.tensor([3.0, 4.0])
    >>> clip_grad_norm([w], max_norm=1.0)
    tensor(5.)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    # TODO: total norm over all gradients, then one in-place scale factor for all.
    raise NotImplementedError
