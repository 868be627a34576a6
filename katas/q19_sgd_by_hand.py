"""Kata 19: SGD with momentum, Nesterov momentum and weight decay, written by hand.

Plain stochastic gradient descent moves each parameter against its gradient:
p <- p - lr * g. Momentum keeps a running "velocity" buffer per parameter, so directions
that the gradients agree on speed up and noise averages out. Nesterov momentum looks ahead
along that velocity. Weight decay (as torch.optim.SGD does it) adds weight_decay * p to
the gradient first, i.e. an L2 penalty. Per parameter p with gradient g, one step is:

    g = g + weight_decay * p                       (if weight_decay != 0)
    if momentum != 0:
        b = g                          on the first step (no dampening there)
        b = momentum * b + (1 - dampening) * g      on later steps
        g = g + momentum * b           if nesterov, else g = b
    p = p - lr * g

A torch.optim.Optimizer subclass gets the bookkeeping for free: parameter groups (each a
dict holding its params and its own hyperparameters, which schedulers change between
steps), per-parameter `self.state`, zero_grad(), state_dict() and load_state_dict().
Writing `step` is the whole job.

Task: write `SGD` so that it follows the same trajectory as torch.optim.SGD, without
using torch.optim.SGD (or its functional form) inside.
"""

from collections.abc import Callable, Iterable
from typing import Any

import torch


class SGD(torch.optim.Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov momentum and
    (L2-style) weight decay, step for step the same as torch.optim.SGD.

    __init__(params, lr, momentum, dampening, weight_decay, nesterov):
    - params: an iterable of tensors, or of parameter-group dicts, as any torch optimizer.
    - Calls `super().__init__(params, defaults)` with defaults exactly
      {"lr", "momentum", "dampening", "weight_decay", "nesterov"}, the names
      torch.optim.SGD uses, so every group carries these five keys.
    - Raises ValueError if lr, momentum or weight_decay is negative, or if nesterov is
      True while momentum <= 0 or dampening != 0.

    step(closure=None):
    - If closure is given, calls it once inside torch.enable_grad() (it recomputes the loss
      and calls backward, which works even when step() itself is called under
      torch.no_grad()) before the update, and returns what it returned; else None.
    - Reads lr, momentum, dampening, weight_decay and nesterov from each parameter's group
      at every call (a scheduler may have changed them since the last one).
    - Updates each parameter that has a gradient, in place, as in the module docstring,
      recording no autograd graph; parameters whose .grad is None are skipped: unchanged,
      and they get no state: no entry in self.state at all, not even an empty one (self.state
      is a defaultdict, so merely reading self.state[p] creates one), as in torch.optim.SGD.
    - Keeps each parameter's velocity in `self.state[p]["momentum_buffer"]` (the key
      torch.optim.SGD uses, so state dicts are interchangeable), created at the
      parameter's first update when momentum != 0, as a tensor of its own; with momentum 0
      no velocity is kept (no "momentum_buffer" entry, not even None).
    - p.grad itself is not modified, at this step or later ones, in every mode (Nesterov
      included).

    Rules: do not use torch.optim.SGD, torch.optim.sgd.sgd or torch._fused_sgd_ inside.

    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> optimizer = SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     optimizer.zero_grad()
    ...     (w**2).sum().backward()
    ...     optimizer.step()
    >>> w.detach()
    tensor([ 0.4600, -0.9200])
    """

    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ) -> None:
        # TODO: validate the hyperparameters and pass them as defaults to super().__init__.
        raise NotImplementedError

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        # TODO: call the closure (with grad enabled), then update every parameter that has
        # a gradient, without recording a graph, group by group.
        raise NotImplementedError
