"""Kata 10: container modules.

Containers compose layers without a new forward for each combination. nn.Sequential
applies its layers in order; nn.ModuleList and nn.ModuleDict hold layers by index or by
name and leave the forward to you. What they share, and what a plain Python list or dict
lacks, is registration: layers inside a container are submodules, so their parameters
appear in `parameters()` and `state_dict()` (under keys like "blocks.2.weight"), move with
`.to(...)`, are trained by an optimizer and switch with `.train()` / `.eval()`.

Task: build an MLP as an nn.Sequential, a model with a shared trunk and several named
heads (nn.ModuleDict), and a stack of residual blocks (nn.ModuleList).
"""

from collections.abc import Mapping, Sequence

import torch
from torch import nn


def make_mlp(sizes: Sequence[int]) -> nn.Sequential:
    """An nn.Sequential of Linear layers with a ReLU between each pair of them.

    - sizes: [in_features, hidden..., out_features], at least two ints, in any sequence (a
      list, a tuple, a range), left as the caller gave it.
    - Layout: Linear(sizes[0], sizes[1]), ReLU(), Linear(sizes[1], sizes[2]), ReLU(), ...,
      Linear(sizes[-2], sizes[-1]): no ReLU after the last Linear. The ReLUs are `nn.ReLU()`,
      out of place: a Linear's output stays as the Linear computed it, where
      `nn.ReLU(inplace=True)` would overwrite it after the Linear's forward hooks ran (a
      hook that keeps the output and reads it later would find it changed). So the Linear layers sit
      at the even indices 0, 2, 4, ... and the state_dict keys are "0.weight", "0.bias",
      "2.weight", ...
    - Rule: every position holds a module of its own, made by this call: a new nn.ReLU()
      for each (one ReLU object in several positions, or shared by two models, computes the
      same numbers, but a hook on it fires at each of them, and named_modules() lists it once).
    - Rule: every layer keeps the initialisation its constructor draws from torch's
      generator as the caller seeded it, the Linears created in order: after the same
      torch.manual_seed, the weights equal those of the same Linears created one after
      another (no init of your own, no seed of your own).
    - Raises ValueError if sizes has fewer than two entries.

    >>> make_mlp([4, 8, 2])
    Sequential(
      (0): Linear(in_features=4, out_features=8, bias=True)
      (1): ReLU()
      (2): Linear(in_features=8, out_features=2, bias=True)
    )
    """
    # TODO: build the list of layers and wrap it in nn.Sequential.
    raise NotImplementedError


class MultiHead(nn.Module):
    """A shared trunk with one Linear head per task.

    - `self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())`, the ReLU out
      of place as in make_mlp.
    - `self.heads`: an nn.ModuleDict mapping each name of `heads` to
      `nn.Linear(hidden, heads[name])`, in the order of `heads`.
    - state_dict keys: "trunk.0.weight", "trunk.0.bias", "heads.<name>.weight",
      "heads.<name>.bias".
    - Names: each name must be one nn.ModuleDict accepts; for another ("a.b", "", the name
      of a ModuleDict attribute such as "update" or "keys") the KeyError nn.ModuleDict
      raises goes through to the caller.
    - Rule: as in make_mlp, every layer keeps the initialisation its constructor draws from
      the caller's generator, created in order: the trunk's Linear, then the heads in the
      order of `heads`.

    forward(x): x of shape [..., in_features], not modified (nor the .grad of the model's
    parameters); returns a dict {name: head
    output of shape [..., n]} with one entry per module in `self.heads`, in its order: the
    trunk runs once
    per forward (its Linear's weight is computed with once, whether the trunk is called as
    `self.trunk(x)`, layer by layer or as F.linear on its weight) and every head reads its
    result, with its graph: a loss on any head's output sends gradients into the trunk
    (every head trains it) and into x (the layers before the model train through it), in
    train and in eval mode (the mode is no reason to cut the graph; grad mode is the
    caller's). The dict and the tensors in it are new at each call, each output a tensor
    the caller may write into in place (not one of the views a split of one output gives).
    A head added later (`model.heads["extra"] = nn.Linear(hidden, 2)`) appears in the
    output too.

    >>> model = MultiHead(10, 32, {"label": 5, "box": 4})
    >>> {name: out.shape for name, out in model(torch.randn(8, 10)).items()}
    {'label': torch.Size([8, 5]), 'box': torch.Size([8, 4])}
    """

    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        # TODO: create self.trunk and self.heads as described.
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        # TODO: run the trunk once, then every head in self.heads.
        raise NotImplementedError


class ResidualStack(nn.Module):
    """`depth` residual blocks applied in turn: x = x + relu(block(x)).

    - `self.blocks`: an nn.ModuleList of `depth` separate `nn.Linear(dim, dim)` layers, each
      with its own weights, initialised independently as each new nn.Linear draws them (not
      copies of one layer, which would start every block equal); state_dict keys
      "blocks.<i>.weight" and "blocks.<i>.bias".
    - Rule: the blocks draw from torch's generator as the caller seeded it, in block order,
      and nothing else: after the same torch.manual_seed they equal `depth` nn.Linear(dim,
      dim) created one after another (no init of your own, no seed of your own, not even
      inside torch.random.fork_rng).
    - depth may be 0: no blocks (still an nn.ModuleList, empty, that a block appended later
      joins: forward applies every block self.blocks holds, at any depth), and forward
      returns its input unchanged: x itself or a tensor equal to it that keeps its graph
      (gradients flow to x at every depth).
    - forward(x): x of shape [..., dim]; returns the same shape (the .grad of the blocks'
      parameters left as it is). x is not modified: write
      `x = x + ...`, not `x += ...`, which would add the first block into the caller's
      tensor (and fails for one that requires grad). The relu is out of place, as in
      make_mlp: a block's output stays as the block computed it (`torch.relu_` or
      `F.relu(..., inplace=True)` would overwrite it after the block's forward hooks ran).
    - Raises ValueError if dim < 1 (also with depth 0) or depth < 0 (dim = 1 and depth = 0
      are fine).

    >>> stack = ResidualStack(dim=16, depth=4)
    >>> stack(torch.randn(2, 16)).shape
    torch.Size([2, 16])
    """

    def __init__(self, dim: int, depth: int) -> None:
        # TODO: create self.blocks as described.
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO: apply every block with its residual connection.
        raise NotImplementedError
