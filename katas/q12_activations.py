"""Kata 12: activation functions, as modules and as functions.

An activation is the elementwise nonlinearity between layers; without one, a stack of
Linear layers collapses into a single linear map. ReLU (max(x, 0)) is the cheap default,
GELU (x Φ(x), common in transformers) and SiLU (x σ(x)) are smooth versions of it, sigmoid
and tanh squash to (0, 1) and (-1, 1), and softmax turns a vector of scores into
probabilities. Each one is a tensor formula, and torch offers it two ways:

- as a module, `nn.ReLU()`, `nn.GELU(approximate="tanh")`: a layer you put in an
  `nn.Sequential`. It has no parameters, only settings; it shows in `print(model)` and in
  `model.named_modules()`, so hooks and tools can find it (kata 21 does).
- as a function, `F.relu(x)`, `torch.relu(x)`, `F.gelu(x, approximate="tanh")`: a call in
  your module's `forward`. Nothing is registered; this is the style of a forward with
  branches or a skip connection, which `nn.Sequential` cannot express.

Both compute the same thing. Some have an in-place form (`nn.ReLU(inplace=True)`,
`F.relu(x, inplace=True)`, `x.relu_()`) that overwrites its input instead of allocating a
result: it saves memory, but only where nothing needs the input any more. Autograd keeps
some tensors for the backward pass (Linear keeps its input, tanh and sigmoid their result,
GELU its input) and counts every in-place change; overwriting one of them makes
`backward()` raise "one of the variables needed for gradient computation has been modified
by an inplace operation". Code that reads the tensor later (a skip connection, the caller)
silently gets the overwritten values.

softmax has a setting you must always give: `dim`, the dimension that holds the classes.
The probabilities sum to 1 along it, and the right one depends on the layout: logits of
shape [N, C] have their classes at dim 1; per-position logits as F.cross_entropy and Conv1d
lay them out, [N, C, T], at dim 1 too; as a Linear over a sequence makes them, [N, T, C], at
dim -1.

Task: a stable softplus from primitives, a classifier with activation modules, a residual
block with activation calls (one in place, one not), and probabilities over the right dim.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

import torch
from torch import nn


def softplus(x: torch.Tensor) -> torch.Tensor:
    """softplus(x) = log(1 + exp(x)) of every element of x, the function F.softplus(x) computes.

    - x: a float32 or float64 tensor of any shape (including empty), on any device.
    - Returns a tensor of x's shape, dtype and device; gradients flow to x (the derivative is
      sigmoid(x)). x is not modified.
    - Rule: values and gradients are finite and correct for every finite x, 0 included
      (sigmoid(0) = 0.5): within a relative 1e-5 (float32) or 1e-10 (float64) of the exact
      log(1 + exp(x)) and sigmoid(x). exp(x) overflows to inf above about 88 in float32 (try
      ±100 and ±1e4); returning x (gradient 1) for large x is fine where exp(-x) is below
      that tolerance: above about 12 in float32 and 24 in float64 (F.softplus switches at
      20, too early for float64, where 1 - sigmoid(20.5) is 1.25e-9; 40 is safe for both).
      Where the result is tiny (about exp(x) for very negative x), it and its gradient are
      accurate relative to their size down to the dtype's smallest normal number, not
      rounded to 0 (exp(x) alone, without the log1p, is within the tolerance only below
      about -11 in float32 and -23 in float64).
    - Hint: max(x, 0) + log1p(exp(-|x|)) is stable, but at x = 0 relu, clamp and abs send a
      gradient of 0 or 1 where the max's should be 0.5 (torch.maximum splits it at a tie).

    Rules: do not call F.softplus, nn.Softplus or F.logsigmoid, nor any way torch offers a
    log-sum-exp (torch.logaddexp, torch.logsumexp, softmax, log_softmax, the
    cross-entropies, the soft-margin losses, F.mish): softplus under other names. Use
    primitives such as torch.exp, torch.log1p, torch.abs, torch.clamp and torch.where.

    >>> softplus(torch.tensor([-20.0, 0.0, 100.0]))
    tensor([2.0612e-09, 6.9315e-01, 1.0000e+02])
    """
    # TODO: compute softplus without overflow, in values and in gradients.
    raise NotImplementedError


def mlp(features: int, hidden: int, classes: int) -> nn.Sequential:
    """A classifier built from layers: activations as modules in an nn.Sequential.

    - Rule: return exactly `nn.Sequential(Linear(features, hidden), ReLU, Linear(hidden,
      hidden), GELU, Linear(hidden, classes))`, five layers in this order, the activations
      as nn.ReLU and nn.GELU modules; the class itself, not a subclass (whose forward could
      do more than the layers show).
    - Rule: the ReLU works in place (`inplace=True`): it follows a Linear, whose backward
      needs its input, not its output. The GELU uses the tanh approximation
      (`approximate="tanh"`).
    - The output is raw logits, shape [N, classes] for input [N, features]: no softmax at
      the end (the loss applies it).
    - Rule: each call builds its own layers and activation modules: two models share no
      module (a hook on one model's ReLU fires for that model only).
    - Rule: every parameter is on torch's default device, in torch's default dtype (float64
      under torch.set_default_dtype(torch.float64)), initialised as nn.Linear creates it
      (uniform in ±1/sqrt(in_features)): pass no device or dtype, redraw nothing. After the
      same torch.manual_seed, the weights equal those of the three nn.Linear created in
      order.
    - Hint: the layers may be numbered, as above, or named (an OrderedDict); only their kinds
      and order are checked.

    >>> mlp(4, 8, 3)
    Sequential(
      (0): Linear(in_features=4, out_features=8, bias=True)
      (1): ReLU(inplace=True)
      (2): Linear(in_features=8, out_features=8, bias=True)
      (3): GELU(approximate='tanh')
      (4): Linear(in_features=8, out_features=3, bias=True)
    )
    """
    # TODO: put the layers and the activation modules in an nn.Sequential.
    raise NotImplementedError


class PreActivationBlock(nn.Module):
    """A residual block with the activations as function calls in forward.

    `PreActivationBlock(features, hidden)(x) = x + fc2(relu(fc1(relu(x))))`, for x of shape
    [N, features] (the "pre-activation" form of a ResNet block: the ReLU comes before each
    layer, and the skip connection adds the block's input unchanged).

    - Rule: its only submodules are `self.fc1 = nn.Linear(features, hidden)` and
      `self.fc2 = nn.Linear(hidden, features)`, named so (initialised as nn.Linear creates
      them, from torch's generator as the caller seeded it), and forward calls them as modules
      (`self.fc1(...)`, so forward hooks see them); the ReLUs are calls in forward
      (`F.relu`, `torch.relu`, a tensor method), not registered modules.
    - Rule: the ReLU on fc1's output works in place on that tensor (`F.relu(h,
      inplace=True)` or `h.relu_()`): nothing else needs it, and fc2 reads that same tensor.
      No second tensor of its size is allocated (a bool mask neither: `h.mul_(h > 0)` and
      `h.masked_fill_(h < 0, 0)` make one): a ReLU out of place whose result
      is copied back (`h.copy_(F.relu(h))`, `h[:] = ...`) allocates one, and so does
      `h.clamp_(min=0)`, in place but with a backward that needs its input, which autograd
      then copies first (relu's backward needs only its result). In training and in eval
      mode alike, with or without a graph.
    - Rule: fc1 and fc2 are in torch's default dtype (pass no dtype).
    - The ReLU on x works out of place: the skip connection adds x itself, the caller's x
      stays as it was, and backward works when the op that made x saved it (x a leaf that
      requires grad, or the output of tanh).
    - Returns a tensor of x's shape, dtype and device; gradients flow to x and to every
      parameter.

    >>> block = PreActivationBlock(4, 8)
    >>> [name for name, _ in block.named_children()]
    ['fc1', 'fc2']
    """

    def __init__(self, features: int, hidden: int) -> None:
        # TODO: call super().__init__(), then register fc1 and fc2.
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO: x + fc2(relu(fc1(relu(x)))), with the second ReLU in place.
        raise NotImplementedError


def class_probabilities(logits: torch.Tensor, layout: str, log: bool = False) -> torch.Tensor:
    """softmax (or log_softmax, with `log=True`) of `logits` over their class dimension.

    - layout: one letter per dimension of `logits`, "C" for the classes, e.g. "NC" for
      [batch, classes], "NCT" for [batch, classes, time] (F.cross_entropy's layout), "NTC"
      for [batch, time, classes], "NCHW" and "NHWC" for images. The class dimension is where
      its "C" is, whatever the sizes (classes and time steps may be equally many).
    - Returns a tensor of the logits' shape, dtype and device: probabilities that sum to 1
      along the class dimension (or their logs). There is at least one class (the class
      dimension is never empty); any other dimension may be 0 (no samples, no time steps):
      the result is then empty, of the logits' shape. Any floating dtype: float16 and bfloat16
      logits give a float16 or bfloat16 result (computing in float32 inside is fine; cast
      back), within a few roundings of that dtype. Gradients flow to `logits` (the result
      feeds a loss), and the caller's `logits` are not modified, for any dtype and either
      value of `log`.
    - Finite and correct, in every floating dtype, for logits far apart (a gap of 1000) or
      large (1000): exp(1000) overflows to inf unless the largest logit is subtracted first,
      and with log=True, log(softmax(...)) underflows to log(0) = -inf (in float32 too, so
      a float16 result computed as the log of a float32 softmax is -inf as well).
      Log-probabilities are compared with an absolute tolerance of a few roundings of the
      logits' size (x - logsumexp(x) is fine).
    - Raises ValueError if layout does not have one letter per dimension of `logits`, or has
      no "C" or more than one.

    >>> logits = torch.tensor([[1.0, 1.0], [1.0, 3.0]]).log()  # [N=2, C=2]
    >>> class_probabilities(logits, "NC")
    tensor([[0.5000, 0.5000],
            [0.2500, 0.7500]])
    """
    # TODO: softmax or log_softmax over the dim where the layout has its "C".
    raise NotImplementedError
