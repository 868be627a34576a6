"""Buffers registered in a loop over a table, the running mean updated with copy_."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features, self.momentum = num_features, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        buffers = {
            "running_mean": (torch.zeros(num_features), True),
            "taper": (torch.linspace(1.0, 0.5, num_features), False),
        }
        for name, (value, persistent) in buffers.items():
            self.register_buffer(name, value, persistent=persistent)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.size(-1) != self.num_features:
            raise ValueError(f"last dim must be {self.num_features}, got {x.size(-1)}")
        if self.training:
            with torch.no_grad():
                mean = x.detach().flatten(0, -2).mean(0) if x.dim() > 1 else x.detach()
                updated = (1 - self.momentum) * self.running_mean + self.momentum * mean
                self.running_mean.copy_(updated)
        return (x - self.running_mean) * self.weight * self.taper
