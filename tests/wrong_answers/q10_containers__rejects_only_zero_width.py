"""Wrong: rejects dim == 0 instead of dim < 1, so a negative dim reaches nn.Linear, which
fails with a RuntimeError (or, with depth 0, not at all)."""

import torch
from torch import nn

from solutions.q10_containers import MultiHead, make_mlp


class ResidualStack(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        if dim == 0 or depth < 0:
            raise ValueError(f"need dim >= 1 and depth >= 0, got dim={dim}, depth={depth}")
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = x + torch.relu(block(x))
        return x
