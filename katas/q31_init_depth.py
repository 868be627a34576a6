"""Kata 31: why initialisation matters in deep networks.

Each linear layer multiplies the scale of its input by roughly sqrt(fan_in) × weight_std,
and the activation changes it again (ReLU zeroes half of a symmetric input, so it halves
the mean square; tanh squashes large values). Over 50 layers a factor of 1.1 becomes 117
and a factor of 0.7 becomes 2e-8: the activations, and with them the gradients, explode or
vanish. Good schemes pick the weight std that makes the factor 1:
Xavier/Glorot, std = sqrt(2 / (fan_in + fan_out)), for tanh or linear layers, and
Kaiming/He, std = sqrt(2 / fan_in), for ReLU (the 2 undoes ReLU's halving). The weights
must also be random, not merely of the right size: with every weight of a layer equal (or
all zero), every unit of the layer computes the same value and gets the same gradient, so
they stay copies of one another however long training runs. Random draws break that
symmetry. (PyTorch's own default for nn.Linear and nn.Conv is uniform in ±1/sqrt(fan_in),
a std of 1/sqrt(3 fan_in): small enough for the factor to shrink through a deep ReLU stack.)

Task: build deep ReLU/tanh stacks under different initialisations, measure the std of the
activations layer by layer, predict the per-layer factor for ReLU stacks, and train a small
network from constant, zero and random weights to see which of them ever learns more than
one hidden unit.
"""

import torch
from torch import nn


def deep_stack(
    depth: int,
    width: int,
    activation: str,
    init: str,
    *,
    device: torch.device | str | None = None,
) -> nn.Sequential:
    """A deep MLP: `depth` times nn.Linear(width, width, bias=False) followed by an activation.

    - activation: "relu" (an nn.ReLU after every Linear) or "tanh" (an nn.Tanh). The ReLU
      is not in place (inplace=False): in place it would overwrite the Linear's output after
      the Linear's hooks ran, so an output a hook kept to read later (as activation_stds
      may) would have changed.
    - init: how every Linear weight (fan_in = fan_out = width) is drawn, with mean 0 and
        "normal":  std 1 whatever the width (the naive N(0, 1) choice);
        "xavier":  std sqrt(2 / (fan_in + fan_out)) (Glorot, gain 1);
        "kaiming": std sqrt(2 / fan_in) (He, for ReLU).
      A uniform or a normal distribution with that std: either is accepted.
    - Returns nn.Sequential(Linear, act, Linear, act, ...) with 2 × depth distinct module
      objects: every Linear is a module of its own with its own weight, drawn independently
      of the others from torch's global generator as the caller seeded it (no generator of
      your own), and every activation is a new instance too (no module object appears
      twice, so hooks and named_modules() see every layer). Its parameters are created on
      `device` (None: the default device) in the default dtype: made there, not made on the
      default device and moved with .to(device).
    - Raises ValueError for an unknown activation or init (the names are as written above,
      lower case: "ReLU" is unknown), or when depth or width is below 1 (0 or negative).

    >>> stack = deep_stack(3, 64, "relu", "kaiming")
    >>> [type(m).__name__ for m in stack][:4], stack[0].bias
    (['Linear', 'ReLU', 'Linear', 'ReLU'], None)
    """
    # TODO: build the layers, then fill each weight with torch.nn.init (in place).
    raise NotImplementedError


def activation_stds(stack: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """Feed `x` through `stack` and return the std of every activation module's output.

    - stack: an nn.Sequential of nn.Linear and activation modules, as deep_stack builds,
      on x's device.
    - x: (batch, width) floating tensor, batch >= 2.
    - An activation module is every module of the stack that is not an nn.Linear (an
      instance of it, subclasses included): nn.ReLU and nn.Tanh, and any other, torch's or
      the caller's own (nn.GELU, nn.Sigmoid, a user-defined Swish; nn.Identity too). The
      modules of the stack are its own entries (`for layer in stack`), not the modules
      nested inside one: a caller's activation that holds an nn.Sigmoid is one activation.
    - Returns a 1-D tensor with one entry per activation module, in order (a stack without
      one gives an empty tensor): the standard deviation of all elements of that module's
      output (over the batch and the features; unbiased as torch.std computes it, or
      biased: both are accepted). Same dtype and
      device as x (float16 stds are finite wherever the exact ones fit float16, as
      torch.std's are), no autograd graph (requires_grad False): a measurement, so the
      layers run with autograd off (`torch.no_grad()`), none recording a graph to detach.
    - Once activations overflow to inf, the entries that follow may be inf or nan.
    - x, the stack's parameters and their .grad are left as they were, and so is the
      stack itself: no hook left on any module, each module in its own train/eval mode.

    >>> stack = nn.Sequential(nn.Linear(2, 2, bias=False), nn.ReLU())
    >>> activation_stds(stack, torch.randn(8, 2)).shape
    torch.Size([1])
    """
    # TODO: run the layers one by one under torch.no_grad(), keeping the std after each activation.
    raise NotImplementedError


def relu_std_ratio(width: int, weight_std: float) -> float:
    """By what factor the activation std grows from one layer of a ReLU stack to the next.

    Each layer is Linear(width, width, bias=False) with zero-mean weights of std
    `weight_std`, followed by ReLU. Derive it: a sum of `width` independent terms has the
    variance of one term times `width`, and ReLU of a zero-mean symmetric input keeps half
    of its mean square. The result is a Python float; 1.0 means the scale is preserved.
    It is finite and nonzero wherever the exact factor is, for any weight_std > 0 (1e200 and
    1e-200 included: weight_std ** 2 overflows or underflows there, so avoid squaring it).

    >>> relu_std_ratio(512, (2 / 512) ** 0.5)  # Kaiming
    1.0
    """
    # TODO: one line of arithmetic.
    raise NotImplementedError


def train_hidden_units(
    x: torch.Tensor, y: torch.Tensor, hidden: int, init: str, steps: int, lr: float
) -> torch.Tensor:
    """Train a one-hidden-layer network from `init`; return what its hidden units learned.

    - The network: nn.Linear(D, hidden, bias=False), nn.Tanh(), nn.Linear(hidden, 1,
      bias=False), made in x's dtype on x's device.
    - init sets the weights of both layers:
      "constant": every weight 0.5;
      "zeros": every weight 0;
      "xavier": nn.init.xavier_normal_ on each weight (random, from torch's global generator).
      Any other init raises ValueError (the names are lower case: "Xavier" is another).
    - x: [N, D] floating; y: [N], x's dtype and device; hidden >= 1; steps >= 0.
    - `steps` steps of full-batch gradient descent on `((net(x).squeeze(-1) - y) ** 2).mean()`:
      each step takes the gradients of both layers' weights and moves every weight by
      `-lr * grad` (what torch.optim.SGD(params, lr) does; fresh gradients each step).
    - Returns the hidden layer's weight after training, [hidden, D], in x's dtype on x's
      device, detached: row i is what hidden unit i has learned. x and y are not modified.

    What it shows: with "constant" every hidden unit computes the same value and gets the same
    gradient, so the rows stay equal however long training runs (the layer is one unit
    copied); with "zeros" no gradient reaches the hidden layer at all (the output layer's
    zero weights send none back, and the hidden outputs, tanh(0) = 0, give the output layer
    none to grow from): its weights stay 0; with "xavier" the rows differ from the start and
    each unit learns its own feature.

    >>> x, y = torch.randn(8, 3), torch.randn(8)
    >>> w = train_hidden_units(x, y, hidden=4, init="constant", steps=5, lr=0.1)
    >>> w.shape, torch.allclose(w, w[0].expand_as(w))  # every row the same
    (torch.Size([4, 3]), True)
    """
    # TODO: build the network, set its weights by init, run the steps, return the first weight.
    raise NotImplementedError
