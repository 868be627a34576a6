"""Parameter by attribute assignment, batch mean over a dim tuple, update in a no_grad helper."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = num_features
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features), persistent=True)
        taper = torch.linspace(1.0, 0.5, num_features)
        self.register_buffer("taper", taper, persistent=False)

    @torch.no_grad()
    def _track(self, x: torch.Tensor) -> None:
        # mean(dim=()) would reduce over everything, so a 1-D x is its own mean.
        batch_dims = tuple(range(x.dim() - 1))
        batch_mean = x.mean(dim=batch_dims) if batch_dims else x
        self.running_mean.mul_(1.0 - self.momentum).add_(batch_mean * self.momentum)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() < 1:
            raise ValueError("x needs at least one dimension")
        if x.size(-1) != self.num_features:
            raise ValueError(f"expected {self.num_features} features, got {x.size(-1)}")
        if self.training:
            self._track(x)
        centred = x - self.running_mean
        return centred * (self.weight * self.taper)
