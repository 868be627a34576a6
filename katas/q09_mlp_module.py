"""Kata 9: a custom network as an nn.Module.

`nn.Module` is the base class of every PyTorch model. Subclass it, create layers in
`__init__` and say how data flows in `forward`; layers assigned as attributes (or held in
nn.Sequential / nn.ModuleList) are registered, so the module finds their parameters for
`parameters()`, `state_dict()`, `.to(...)`, and switches them with `.train()` / `.eval()`.
Run a module by calling it, `model(x)`, not `model.forward(x)`: the call runs the hooks
registered on it (kata 21 and kata 34 measure with forward hooks) around forward.

Task: write a multilayer perceptron whose depth, width, activation and dropout are set by
its arguments. (Counting a model's parameters, and how parameters() differs from
state_dict(), is kata 27.)
"""

from collections.abc import Callable, Sequence

import torch
from torch import nn


class MLP(nn.Module):
    """A stack of fully connected layers: Linear, activation, dropout, ..., Linear.

    - sizes: [in_features, hidden_1, ..., out_features], at least two positive ints, in
      any sequence (a list, a tuple, a range), which is left as it is.
      Layer i is `nn.Linear(sizes[i], sizes[i + 1])` (with bias), so there are
      len(sizes) - 1 Linear layers and no other parameters, each initialised as nn.Linear
      creates it, from torch's generator as the caller seeded it.
    - activation: a zero-argument callable returning a module, such as nn.ReLU, nn.Tanh or
      `lambda: nn.LeakyReLU(0.1)`; called once for each hidden layer, in order, while the
      model is built (never in forward): hidden layer i is followed by the module that the
      i-th call returned, and by no other.
    - dropout: probability p in [0, 1) of zeroing each hidden unit (not of keeping it),
      of each sample independently (not one mask shared by the batch), scaling the kept
      ones by 1 / (1 - p) (as nn.Dropout does), the masks drawn from torch's generator as
      the caller seeded it. Dropout is active in training mode
      (`model.train()`, the default for a new module) and off in `model.eval()`.

    forward(x): x has shape [..., in_features] (any number of leading dims, including 0 or
    an empty batch; any strides: a transposed or sliced view works too) and the dtype/device
    of the model's parameters (their .grad is left as it is: a forward clears nothing).
    Every Linear layer but
    the last is followed by the activation, then dropout; the last Linear's output is
    returned as is (no activation): shape [..., out_features].

    The Linear layers, listed in order, are `[m for m in model.modules() if isinstance(m,
    nn.Linear)]` (register them in the order they are applied). Everything must follow the
    model on `.to(device)` and `.to(torch.float64)`.

    Raises ValueError if sizes has fewer than two entries or a non-positive entry, or if
    dropout is not in [0, 1) (a NaN dropout included).

    >>> model = MLP([4, 16, 16, 3], activation=nn.ReLU, dropout=0.1)
    >>> model(torch.randn(8, 4)).shape
    torch.Size([8, 3])
    """

    def __init__(
        self,
        sizes: Sequence[int],
        activation: Callable[[], nn.Module] = nn.ReLU,
        dropout: float = 0.0,
    ) -> None:
        # TODO: call super().__init__(), check the arguments, then create and register the layers.
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO: apply the layers in order.
        raise NotImplementedError
