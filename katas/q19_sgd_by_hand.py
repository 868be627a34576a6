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

Choosing an optimizer is choosing what it keeps and how it scales a step. SGD keeps
nothing (with momentum, one buffer per parameter); Adam and AdamW keep two (running means
of the gradient and of its square), twice the model's memory again. In exchange Adam
divides each coordinate's step by its own gradient scale, so a long, narrow valley (a
loss far steeper in one direction than another) does not slow it down, while plain SGD's
learning rate is capped by the steepest direction and crawls along the flattest. Typical
choices: AdamW for transformers and most new models, SGD with momentum for convolutional
networks trained long on a schedule, plain Adam where no weight decay is wanted.

Task: write `SGD` so that it follows the same trajectory as torch.optim.SGD, without
using torch.optim.SGD (or its functional form) inside; `optimizer_state_bytes`, the memory
an optimizer keeps; and `race_in_a_valley`, torch's SGD, SGD with momentum and Adam on one
ill-conditioned problem.
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
    - Updates each parameter that has a gradient (.grad is not None, whether or not it
      requires grad), in place, as in the module docstring, recording no autograd graph: in
      its own memory, which a view of it sees (`p.data = ...` is no update in place).
      Parameters whose .grad is None are skipped: unchanged, and they get no state: no
      entry in self.state at all, not even an empty one (self.state is a defaultdict, so
      merely reading self.state[p] creates one), as in torch.optim.SGD.
    - Keeps each parameter's velocity in `self.state[p]["momentum_buffer"]` (the key
      torch.optim.SGD uses, so state dicts are interchangeable), created at the
      parameter's first update when momentum != 0, as a tensor of its own; with momentum 0
      no velocity is kept (no "momentum_buffer" entry, not even None; whether an empty
      self.state[p] entry exists then is left open).
    - p.grad itself is not modified, at this step or later ones, in every mode (Nesterov
      included).

    Rules: do not use torch.optim.SGD, torch.optim.sgd.sgd or torch._fused_sgd_ inside; use
    torch's public API only, anywhere in the module: private torch names (the multi-tensor
    torch._foreach_add_ and the like, torch._C, torch.ops) and names looked up from strings
    are refused, since they reach the optimizer's kernels unseen.

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


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    """The bytes of tensor memory `optimizer` keeps for its parameters, as a Python int.

    - Every tensor in `optimizer.state` counts, at `numel() * element_size()` bytes: each
      parameter's entries (momentum buffers, running averages, step counters held as
      0-dim tensors), also tensors inside a list or tuple there. Numbers and None count 0.
      Each entry counts on its own: a view counts its own elements, not the storage it
      looks into, and a tensor held in two entries counts twice.
    - Reads only the entries the state holds: parameters without state get none (reading
      `optimizer.state[p]` would add an empty one: it is a defaultdict).
    - The parameters themselves and their gradients do not count (they are the model's),
      nor tensors in `optimizer.param_groups` (a tensor lr is a hyperparameter, not state).
    - State appears on the first step: before it, the total is 0.

    >>> model = torch.nn.Linear(1000, 1000)
    >>> optimizer = torch.optim.Adam(model.parameters())
    >>> model(torch.randn(1, 1000)).sum().backward(); optimizer.step()
    >>> optimizer_state_bytes(optimizer)  # two float32 buffers a parameter, a 0-dim step each
    8008008
    """
    # TODO: add up the sizes of the tensors in optimizer.state.
    raise NotImplementedError


def race_in_a_valley(scales: torch.Tensor, steps: int = 100) -> dict[str, torch.Tensor]:
    """Minimise f(x) = 0.5 * sum(scales * x**2) with three of torch's optimizers; return the
    point each one reaches.

    - scales: a 1-D floating tensor of positive curvatures, on any device (say [1, 1000]:
      a valley 1000 times steeper across than along).
    - Each optimizer starts from its own x = ones like `scales` (same dtype and device)
      and runs `steps` steps of: zero the gradient, compute f, backward, step.
    - "sgd": torch.optim.SGD with lr = 1 / scales.max() (the rate that settles the
      steepest direction in one step; rates up to 2 / scales.max() still converge there,
      above it SGD diverges), a Python float
      computed from scales' own dtype (not rounded to float32 on the way).
    - "momentum": torch.optim.SGD with the same lr and momentum=0.9.
    - "adam": torch.optim.Adam with lr=0.1 (its other settings left as they are).
    - Returns {"sgd": x, "momentum": x, "adam": x}: each final x detached, in scales' dtype
      and device. `scales` is not modified: where it requires grad, its .grad is left as
      it was (x alone is optimised). Works under a caller's torch.no_grad() too.

    >>> reached = race_in_a_valley(torch.tensor([1.0, 1000.0]))
    >>> reached["sgd"], reached["adam"]  # SGD has barely moved along the valley
    (tensor([0.9048, 0.0000]), tensor([0.0029, 0.0029]))
    """
    # TODO: one loop per optimizer, each from x = ones; return the three end points.
    raise NotImplementedError
