"""Kata 21: choose activation functions, by measuring dead and saturated units.

An activation is the nonlinearity between layers; which one to use is a choice with two
sides, the hidden layers and the output.

Hidden layers: the question is whether gradients get through.

- nn.ReLU, max(0, x): the default. Cheap, and its slope is 1 for every positive input, so it
  does not saturate there. But its slope is 0 for x <= 0: a unit whose pre-activation is
  negative for every example outputs 0, gets no gradient, and never recovers (a dead unit).
  A large learning rate or a badly scaled layer can kill a good part of a layer.
- nn.LeakyReLU(negative_slope=0.01) (nn.PReLU learns the slope): a small slope for x < 0,
  so a unit can be pushed back to life. Its output at 0 is 0, its slope is not.
- nn.GELU, x Φ(x), and nn.SiLU, x σ(x): smooth, slightly negative for x < 0; the default in
  transformers (GELU in BERT and GPT, SiLU in SwiGLU). Their slope vanishes only far below 0.
- nn.Sigmoid (range (0, 1)) and nn.Tanh (range (-1, 1), centred on 0): they saturate. For
  large |x| the output is flat and the slope goes to 0 (σ' ≤ 1/4 everywhere, tanh' ≤ 1), so
  gradients vanish through a deep stack. Keep them for gates (LSTM, GRU, attention gates)
  and for outputs that must be bounded, not for the hidden layers of a deep network.

Output layer: the question is which loss follows, and what range the target has.

- A loss that takes logits applies the squashing itself, stably (log-sum-exp inside):
  nn.CrossEntropyLoss (log_softmax over the class dim), nn.BCEWithLogitsLoss (log-sigmoid).
  The model's last layer then stays linear: no activation. Adding nn.Softmax or nn.Sigmoid
  in front squashes twice, and the loss trains on the wrong thing. Probabilities for a
  prediction come after, outside the loss: torch.softmax(logits, dim=1), torch.sigmoid.
- A target with a range of its own gets an activation that maps onto that range, with the
  regression loss after it (nn.MSELoss, nn.HuberLoss, nn.GaussianNLLLoss...).

Dead and saturated, as measured here. Apply an elementwise activation f to a batch of
pre-activations x; a unit is one position of a single example (a tensor of shape (N, C, H, W)
holds N examples of C×H×W units). f'(x) is the slope of f at that position, as autograd
computes it (the derivative of f's output there with respect to its input there; PyTorch's
ReLU has slope 0 at exactly 0).

- A unit is *dead* on the batch when, for every one of the N examples, both its output
  f(x) and its slope f'(x) are exactly 0. A unit that is alive for even one example is alive.
- A unit is *saturated* on the batch when, for every example, |f'(x)| < threshold (strictly
  below). A dead unit is saturated too; a tanh unit stuck at ±1 is saturated, not dead.
- NaN is not 0 and not below any threshold: an example whose output is NaN keeps its unit
  from being dead, one whose slope is NaN keeps it from being saturated.

Forward hooks measure inside a model without changing its code:
`module.register_forward_hook(fn)` makes `fn(module, inputs, output)` run after each call
of that module and returns a handle whose `.remove()` takes the hook off again. A diagnostic
tool takes its hooks off whatever happens, or it leaves the model slower and holding on to
tensors.

Task: `dead_and_saturated` measures both fractions for several activations on the same
pre-activations, `output_activation` picks the final activation for a task, and
`dead_relu_fraction` finds the dead units of every nn.ReLU in a model with forward hooks.
"""

from collections.abc import Callable, Mapping

import torch
from torch import nn


def dead_and_saturated(
    pre: torch.Tensor,
    activations: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    threshold: float = 1e-3,
) -> dict[str, tuple[float, float]]:
    """Apply each activation to the same pre-activations; measure its dead and saturated units.

    - pre: a floating tensor of pre-activations, batch dimension first, shape (N, *units) with
      N ≥ 1 examples and at least one unit (shape (N,) is one unit per example), on any
      device, with any strides (a transposed or sliced tensor too). Rule: each activation
      runs on pre's device, in pre's dtype (float64 slopes as small as 1e-12 are measured, not
      rounded to 0 in float32; float16 runs in float16). The slopes are each position's own
      (of f(x).sum()), not a mean's rescaled, which underflows in float16; the fractions are
      counted in float32 or float64, not in pre's dtype (bfloat16 rounds 1/3 to 0.334).
    - activations: {name: f}, f an elementwise activation, a module (nn.ReLU()) or a function
      (torch.tanh): f(x) has x's shape, its value at a position depends on x at that position
      only, autograd can differentiate it with respect to x, in reverse and in forward mode,
      torch.func's transforms included (every torch activation can: the slopes may come from
      either; a torch.autograd.Function that torch.func.jvp cannot differentiate, one without
      a jvp or a setup_context, and an f whose output does not depend on x through autograd,
      torch.zeros_like(x), are outside the contract), and it does not work in place. Its own
      parameters (nn.PReLU's weight) and their .grad are left as they are: take the slopes
      with respect to x only (torch.autograd.grad, not .backward()).
    - Dead and saturated are as defined in the module's docstring (every example; both the
      output and the slope exactly 0 for dead; |slope| strictly below `threshold` for
      saturated, the threshold as given, not rounded into pre's dtype first: float16 rounds
      1e-8 to 0, below which no slope is, and float32 rounds 0.25 + 1e-12 to 0.25).
      Returns {name: (dead units / units, saturated units / units)}, the names of
      `activations` in the same order, each fraction a Python float in [0, 1].
    - The slopes are autograd's, also when the caller runs under torch.no_grad() (and the
      caller's grad mode is as it was afterwards, also when an activation raises: turn
      autograd on with a `with` block; under torch.inference_mode() it may raise, that is
      outside the contract). Hint: f is elementwise, so the gradient of f(x).sum() with
      respect to x is every slope at once.
    - pre is left as it was: its values, its requires_grad, its .grad and the graph it is part
      of (measure on a detached copy).
    - Raises ValueError if pre has no example or no unit (a 0-dim pre has no batch
      dimension: neither), or if threshold is not > 0 (NaN included; inf is allowed: every
      unit is then saturated except one with a NaN slope, which is below no threshold),
      whatever `activations` holds (an empty one too).

    >>> x = torch.tensor([[-1.0, 0.0, 9.0, 1.0], [-2.0, 3.0, -9.0, 2.0]])
    >>> dead_and_saturated(x, {"relu": nn.ReLU(), "gelu": nn.GELU(), "tanh": nn.Tanh()})
    {'relu': (0.25, 0.25), 'gelu': (0.0, 0.0), 'tanh': (0.0, 0.25)}
    """
    # TODO: per activation, autograd slopes on a leaf copy of pre; count over dim 0 with .all.
    raise NotImplementedError


def output_activation(task: str) -> nn.Module | None:
    """The final activation of a model trained for `task`, chosen with the loss that follows.

    | task             | target              | loss after the model     | return               |
    |------------------|---------------------|--------------------------|----------------------|
    | "regression"     | any real number     | nn.MSELoss, nn.HuberLoss | none                 |
    | "positive"       | > 0 (a rate, a std) | nn.GaussianNLLLoss       | nn.Softplus()        |
    | "bounded"        | in [-1, 1]          | nn.MSELoss               | nn.Tanh()            |
    | "binary"         | 0 or 1 per example  | nn.BCEWithLogitsLoss     | none: logits         |
    | "multilabel"     | 0 or 1 per label    | nn.BCEWithLogitsLoss     | none: logits         |
    | "multiclass"     | a class index       | nn.CrossEntropyLoss      | none: logits         |
    | "multiclass_nll" | a class index       | nn.NLLLoss               | nn.LogSoftmax(dim=1) |

    - Rule, "none": return None or nn.Identity(); either says the model's raw output goes to
      the loss unchanged. A loss that takes logits applies the sigmoid or the softmax itself,
      stably: nn.Sigmoid or nn.Softmax in front of it squashes twice (and the loss flattens:
      its gradient vanishes for confident mistakes).
    - Rule, otherwise: a module (no parameters) that computes exactly what the table names,
      to the dtype's rounding (a few units in the last place, for float32 and float64, from
      1e-30 to 1e3; no epsilon added: softplus(-60) is 8.8e-27, not 1e-6; a rewrite that
      loses digits, such as 2σ(2x) - 1 near 0, log(softmax(x)) for logits far apart or
      softplus switching to x at 10, is not it):
      softplus with beta 1 (smooth, > 0, and x itself for large x, where exp would overflow:
      nn.Softplus()'s own switch to x above 20, 2e-9 off in float64, is accepted, and so is
      the exact value there; not ReLU, whose 0 output and 0 slope for x ≤ 0 are neither
      positive nor trainable),
      tanh (onto (-1, 1), smooth, unlike a clamp), log_softmax over dim 1, the class dim of
      an (N, C) or (N, C, d1, ...) output, as nn.NLLLoss expects (not softmax: NLLLoss
      takes log-probabilities).
    - A module returned is a new one on every call, none kept from an earlier call: two
      models built with it share no module object (a hook, a .to() or a train/eval switch
      on one's final activation does not reach the other's).
    - Raises ValueError for any other task, naming it; task names are exact: "Binary",
      " binary" and "binary\n" are not one (no case folding, no stripping).

    >>> output_activation("bounded")
    Tanh()
    >>> output_activation("binary") is None or isinstance(output_activation("binary"), nn.Identity)
    True
    """
    # TODO: a table from task to activation; the logit losses need none.
    raise NotImplementedError


def dead_relu_fraction(model: nn.Module, x: torch.Tensor) -> dict[str, float]:
    """Run `model(x)` once and report, for each nn.ReLU module, the fraction of dead units.

    - model: any nn.Module whose forward takes `x`; each nn.ReLU module in it runs at most
      once per forward pass. The ReLU modules are found with `model.named_modules()`,
      however deeply nested, the model itself included (a bare nn.ReLU is reported under
      the name "") (only nn.ReLU modules count: not F.relu calls, not other
      activations); one ReLU object registered under two names is one module, reported once
      under the name named_modules() gives it (its first).
    - x: a batch on the model's device, batch dimension first, with at least one example.
    - A unit is one position of a ReLU's output for a single example (for an output of
      shape (N, C, H, W) there are C×H×W units; for an output of shape (N,), one). A unit
      is dead on this batch when its output is exactly 0 for every one of the N examples; a
      unit that fires for even one example is alive, and so is one whose output is NaN for
      an example (NaN is not 0).
    - Returns {qualified module name (as in named_modules): dead units / units, a Python
      float in [0, 1]}, with one entry for every nn.ReLU module that ran during the
      forward pass (ReLU modules that did not run are left out). A ReLU whose output has no
      units (x of shape (3, 0) through a bare ReLU) has no dead unit: 0.0, not NaN.
    - Rule: forward hooks record the outputs (forward methods are not replaced, and one the
      caller set on an instance stays): every hook you register is removed before the
      function returns, also when the forward pass raises (that error propagates unchanged);
      hooks that were on the model before stay where they are, and run: call the model as
      `model(x)`, not model.forward(x).
    - The forward pass runs in the model's current mode, module by module (train or eval:
      the units that die can differ; a frozen BatchNorm in eval mode inside a model in
      training mode stays in eval), and the model is left as it was: each module's own
      train/eval mode, its parameters and their .grad, and every buffer of every module,
      non-persistent ones too, whatever mode the model itself is in (in training mode a
      BatchNorm's forward updates running_mean, running_var and num_batches_tracked, and
      other modules may update theirs: put their values back into the same tensors, which
      the caller or an optimizer may hold, in their own memory, which a view of them sees
      (buffer.set_(saved) or buffer.data = saved swaps the memory instead); a forward that
      binds a new tensor to a buffer's name, self.mean = 0.9 * self.mean + ..., rather than
      updating it in place, is outside this contract).
      x is not modified either, even by a model that works in place on its input (one
      whose first layer is nn.ReLU(inplace=True)): run it on a copy. No gradients are
      computed, and no autograd graph is recorded either (run the forward pass under
      torch.no_grad()): gradients the caller had already accumulated in the parameters'
      .grad are left as they are.
    - The fractions are counted in float32 or float64, whatever the model's dtype (bfloat16
      rounds 2/3 to 0.668).
    - Count the dead units inside the hook, when the ReLU has just run: a later in-place op
      in the model (x.add_(1) after the ReLU) may change that output tensor.
    - Raises ValueError if x has no examples (batch size 0); an x with examples but no
      features (shape (3, 0)) is a valid input.

    >>> model = nn.Sequential(nn.Linear(2, 4), nn.ReLU())
    >>> with torch.no_grad():  # units 1 and 2 get a pre-activation below 0 for any x in [0, 1)
    ...     _ = model[0].weight.fill_(1.0), model[0].bias.copy_(torch.tensor([0.0, -9, -9, 0]))
    >>> dead_relu_fraction(model, torch.rand(5, 2))
    {'1': 0.5}
    """
    # TODO: register a forward hook on every nn.ReLU, run the model, remove the hooks.
    raise NotImplementedError
