"""Correct: register_parameter, and the running mean by mul_ and add_ with alpha."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.features, self.momentum = num_features, momentum
        self.register_parameter("weight", nn.Parameter(torch.ones(num_features)))
        self.register_buffer("running_mean", torch.zeros(num_features), persistent=True)
        self.register_buffer("taper", torch.linspace(1.0, 0.5, num_features), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim < 1 or x.size(-1) != self.features:
            raise ValueError("wrong number of features")
        if self.training:
            rows = x.detach().reshape(-1, self.features)
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(rows.mean(0), alpha=self.momentum)
        return (x - self.running_mean) * self.weight * self.taper
