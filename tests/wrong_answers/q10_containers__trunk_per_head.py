"""Wrong: runs the trunk again for every head instead of once."""

from collections.abc import Mapping

import torch
from torch import nn

from solutions.q10_containers import ResidualStack, make_mlp  # the rest as in the reference


class MultiHead(nn.Module):
    def __init__(self, in_features: int, hidden: int, heads: Mapping[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        # ModuleDict registers each head under its name (keys "heads.<name>.*") and keeps
        # the insertion order; a plain dict would hide the heads from parameters() and .to().
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, n) for name, n in heads.items()})

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        return {name: head(self.trunk(x)) for name, head in self.heads.items()}
