"""Explicit register_* calls, a flattened mean and lerp_ for the running mean."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = num_features
        self.momentum = momentum
        self.register_parameter("weight", nn.Parameter(torch.ones(num_features)))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("taper", torch.linspace(1.0, 0.5, num_features), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() == 0 or x.shape[-1] != self.num_features:
            raise ValueError(
                f"expected last dimension {self.num_features}, got shape {tuple(x.shape)}"
            )
        if self.training:
            with torch.no_grad():
                batch_mean = x.reshape(-1, self.num_features).mean(dim=0)
                self.running_mean.lerp_(batch_mean, self.momentum)
        return (x - self.running_mean) * self.weight * self.taper
