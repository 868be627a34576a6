"""Kata 21: find dead ReLUs with forward hooks.

ReLU is the default activation because it is cheap and does not saturate for positive
inputs, but it has a failure mode of its own: a unit whose input is negative for every
example outputs 0 everywhere, gets no gradient, and never recovers (a "dead" ReLU). A
large learning rate or a bad initialisation can kill a good part of a layer.

Forward hooks let you look inside a model without changing its code:
`module.register_forward_hook(fn)` makes `fn(module, inputs, output)` run after each call of
that module, and returns a handle whose `.remove()` takes the hook off again. A diagnostic
tool must always take its hooks off, even when the forward pass fails, or it leaves the
model slower and holding on to tensors.

Task: measure the fraction of dead units in every nn.ReLU module of a model.
"""

import torch
from torch import nn


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    """Run `model(x)` once and report, for each nn.ReLU module, the fraction of dead units.

    - model: any nn.Module whose forward takes `x`; each nn.ReLU module in it runs at most
      once per forward pass. The ReLU modules are found with `model.named_modules()`,
      however deeply nested (only nn.ReLU modules count: not F.relu calls, not other
      activations).
    - x: a batch on the model's device, batch dimension first, with at least one example.
    - A unit is one position of a ReLU's output for a single example (for an output of
      shape (N, C, H, W) there are C×H×W units). A unit is dead on this batch when its
      output is exactly 0 for every one of the N examples; a unit that fires for even one
      example is alive.
    - Returns {qualified module name (as in named_modules): dead units / units, a Python
      float in [0, 1]}, with one entry for every nn.ReLU module that ran during the
      forward pass (ReLU modules that did not run are left out).
    - Forward hooks record the outputs: every hook you register is removed before the
      function returns, also when the forward pass raises (that error propagates unchanged);
      hooks that were on the model before stay where they are.
    - The forward pass runs in the model's current mode (train or eval: the units that die
      can differ), and the model is left as it was: its train/eval mode, its parameters
      and their .grad, and its buffers (in training mode a BatchNorm's forward updates
      running_mean, running_var and num_batches_tracked: put them back afterwards). x is
      not modified either, even by a model that works in place on its input (one whose
      first layer is nn.ReLU(inplace=True)): run it on a copy. No gradients are computed,
      and no autograd graph is recorded either (run the forward pass under
      torch.no_grad()): gradients the caller had already accumulated in the parameters'
      .grad are left as they are.
    - Count the dead units inside the hook, when the ReLU has just run: a later in-place op
      in the model (x.add_(1) after the ReLU) may change that output tensor.
    - Raises ValueError if x has no examples (batch size 0).

    >>> model = nn.Sequential(nn.Linear(2, 4), nn.ReLU())
    >>> with torch.no_grad():  # units 1 and 2 get a pre-activation below 0 for any x in [0, 1)
    ...     _ = model[0].weight.fill_(1.0), model[0].bias.copy_(torch.tensor([0.0, -9, -9, 0]))
    >>> dead_relu_fraction(model, torch.rand(5, 2))
    {'1': 0.5}
    """
    # TODO: register a forward hook on every nn.ReLU, run the model, remove the hooks.
    raise NotImplementedError
