"""register_parameter/register_buffer calls, nn.init.ones_ on an empty Parameter, mul_/add_."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = num_features
        self.momentum = momentum
        self.register_parameter("weight", nn.Parameter(torch.empty(num_features)))
        nn.init.ones_(self.weight)
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("taper", torch.linspace(1.0, 0.5, num_features), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.num_features:
            raise ValueError(f"expected {self.num_features} features, got {x.shape[-1]}")
        if self.training:
            batch_mean = x.detach().reshape(-1, self.num_features).mean(dim=0)
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(batch_mean, alpha=self.momentum)
        return (x - self.running_mean) * self.weight * self.taper

    def extra_repr(self) -> str:
        return f"{self.num_features}, momentum={self.momentum}"
