"""The running mean's update computed in float64 and rounded once into the buffer with copy_;
the output scaled by one combined weight * taper factor, multiplied in place."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = num_features
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features), persistent=True)
        self.register_buffer("taper", torch.linspace(1.0, 0.5, num_features), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.num_features:
            raise ValueError(f"expected {self.num_features} features, got shape {tuple(x.shape)}")
        if self.training:
            with torch.no_grad():
                rows = torch.atleast_2d(x.detach().to(torch.float64)).flatten(0, -2)
                batch_mean = rows.mean(dim=0).to(x.dtype)  # the mean, in x's dtype
                updated = (1.0 - self.momentum) * self.running_mean.double()
                updated += self.momentum * batch_mean.double()
                self.running_mean.copy_(updated)  # rounded once, into the same tensor
        centred = torch.sub(x, self.running_mean)
        return centred.mul_(self.weight * self.taper)
