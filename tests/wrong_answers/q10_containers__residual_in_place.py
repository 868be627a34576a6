"""Wrong: adds each block in place (x += ...), so the first block writes into the
caller's tensor."""

import torch
from torch import nn

from solutions.q10_containers import MultiHead, make_mlp  # the rest as in the reference


class ResidualStack(nn.Module):
    def __init__(self, dim: int, depth: int) -> None:
        super().__init__()
        if dim < 1 or depth < 0:
            raise ValueError(f"need dim >= 1 and depth >= 0, got dim={dim}, depth={depth}")
        # One new Linear per block; `[nn.Linear(dim, dim)] * depth` would repeat one layer.
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x += torch.relu(block(x))
        return x
