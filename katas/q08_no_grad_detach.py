"""Kata 8: torch.no_grad() versus .detach().

Both stop gradients, at different levels:
- `torch.no_grad()` is a mode: inside it no operation is recorded, so no graph is built
  and no tensors are kept for a backward pass. Use it for evaluation and for updates to
  parameters that must not become part of the model (optimizer steps, EMA weights).
- `t.detach()` is one tensor: it returns a tensor sharing t's data but cut off from the
  graph, while the surrounding computation is still recorded. Use it to stop the
  gradient along one path inside a differentiable computation.
- `torch.inference_mode()` goes further than no_grad (it skips autograd's bookkeeping
  too), but the tensors made inside it stay "inference tensors": outside it they cannot be
  saved for backward by a recorded operation (a product with a parameter raises), nor
  changed in place.

Task: an evaluation pass that records nothing, an in-place exponential moving average
of parameters, and a straight-through estimator built with detach.
"""

import torch
from torch import nn


def evaluate(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """`model(x)` as evaluation: in eval mode and without recording a graph.

    - model: any nn.Module; x: its input, on the model's device.
    - Calls `model(x)` once (as `model(x)`, so its hooks run), nothing more.
    - Runs the model in eval mode (dropout off, batch norm uses its running statistics)
      and puts every submodule back in the train/eval mode it was in before,
      also when the model raises; global settings (grad mode) too. (Running a deep copy
      of the model instead is allowed, at twice the memory.)
    - Records nothing: no tensor is saved for backward during the call, the output has
      no grad_fn and requires_grad is False, even when x or the parameters require grad,
      and even for a model that returns its input unchanged (nn.Identity): then the
      result is x detached (it may share x's memory), never x itself.
      No .grad and no buffer (running statistics) changes.
    - The output is an ordinary tensor that later code may use in recorded computations,
      for example as the target of a loss that is backpropagated. (So not
      torch.inference_mode(), whose tensors cannot be saved for backward.)

    >>> model = nn.Sequential(nn.Linear(4, 2), nn.Dropout(0.5))
    >>> out = evaluate(model, torch.randn(3, 4))
    >>> out.shape, out.grad_fn, out.requires_grad, model.training
    (torch.Size([3, 2]), None, False, True)
    """
    # TODO: eval mode, torch.no_grad(), then restore each module's mode.
    raise NotImplementedError


def ema_update_(target: nn.Module, source: nn.Module, decay: float) -> None:
    """Move target's parameters towards source's: `t = decay * t + (1 - decay) * s`.

    - target and source have the same architecture: their `parameters()` pair up in
      order with equal shapes, dtypes and devices. Their names may differ (a wrapper's
      `module.` prefix, another container): pair by order, not by name.
    - Updates every parameter of target in place, once (a weight that two layers share
      is one parameter), frozen ones (requires_grad False, as
      an EMA copy usually is) too: the same Parameter objects, with the
      same storage (so an optimizer that holds them keeps working). Buffers (running
      statistics, counters) are left alone.
    - Records nothing: afterwards target's parameters are still leaves (grad_fn None)
      with their requires_grad unchanged, no tensor was saved for backward, and no
      .grad changed. source is not modified.
    - decay 0 copies source exactly, and decay 1 leaves target exactly as it was (as the
      formula gives them in floating point; `t - (1 - decay) * (t - s)` rounds at decay 0).
    - Returns None.
    - Raises ValueError, before changing anything, if decay is not in [0, 1] (NaN is
      not), or if the two modules do not have the same number of parameters with the
      same shapes. A model without parameters (nothing, or buffers only) has nothing to
      update: the call changes nothing.

    >>> target, source = nn.Linear(2, 1), nn.Linear(2, 1)
    >>> ema_update_(target, source, decay=0.0)  # decay 0 copies source
    >>> torch.equal(target.weight, source.weight)
    True
    """
    # TODO: update each pair in place inside torch.no_grad().
    raise NotImplementedError


def round_ste(x: torch.Tensor) -> torch.Tensor:
    """Round to the nearest integer going forward, and let the gradient through unchanged.

    - x holds finite values. Forward: the values of `torch.round(x)` (halves round to
      even), with x's shape, dtype and device.
    - Backward: the straight-through estimator. Rounding has gradient 0 almost
      everywhere, which would stop training; instead d round_ste(x)/dx is exactly 1, so
      the incoming gradient reaches x unchanged.
    - Rule: build it from ordinary operations and detach, no custom
      torch.autograd.Function. Hint: `x + (torch.round(x) - x).detach()`: the value is
      round(x), but the only recorded path is the identity through x.
    - When x does not require grad, neither does the result. x is not modified.

    >>> x = torch.tensor([0.4, 1.5, 2.7], requires_grad=True)
    >>> y = round_ste(x)
    >>> y.detach(), torch.autograd.grad(y.sum(), x)[0]
    (tensor([0., 2., 3.]), tensor([1., 1., 1.]))
    """
    # TODO: the detach trick.
    raise NotImplementedError
