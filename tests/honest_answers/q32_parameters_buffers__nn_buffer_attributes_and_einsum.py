"""nn.Buffer objects assigned as attributes (persistent=False for the taper), a float64 batch
mean under a no_grad-decorated helper, einsum for the scaling."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = num_features
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.running_mean = nn.Buffer(torch.zeros(num_features))
        self.taper = nn.Buffer(torch.linspace(1.0, 0.5, num_features), persistent=False)

    @torch.no_grad()
    def _track(self, x: torch.Tensor) -> None:
        rows = x.unsqueeze(0) if x.ndim == 1 else x.flatten(0, -2)
        batch_mean = rows.to(torch.float64).mean(dim=0).to(x.dtype)
        new = (1 - self.momentum) * self.running_mean + self.momentum * batch_mean
        self.running_mean.copy_(new)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.num_features:
            raise ValueError(f"expected {self.num_features} features, got {x.shape[-1]}")
        if self.training:
            self._track(x)
        scale = self.weight * self.taper
        return torch.einsum("...f,f->...f", x - self.running_mean, scale)
