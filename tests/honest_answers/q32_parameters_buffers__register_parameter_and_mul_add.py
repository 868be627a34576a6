"""register_parameter on an empty tensor filled by nn.init, the running mean updated by mul_ and
add_(alpha=) under a with-block, torch.sub/torch.mul called as functions."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = int(num_features)
        self.momentum = float(momentum)
        weight = nn.Parameter(torch.empty(num_features))
        nn.init.ones_(weight)
        self.register_parameter("weight", weight)
        self.register_buffer("running_mean", torch.zeros(num_features), persistent=True)
        self.register_buffer("taper", torch.linspace(1.0, 0.5, num_features), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() == 0 or x.size(-1) != self.num_features:
            raise ValueError(f"last dimension must be {self.num_features}: {tuple(x.shape)}")
        if self.training:
            with torch.no_grad():
                batch_dims = list(range(x.dim() - 1))
                m = x.mean(dim=batch_dims) if batch_dims else x
                self.running_mean.mul_(1 - self.momentum).add_(m, alpha=self.momentum)
        centred = torch.sub(x, self.running_mean)
        return torch.mul(torch.mul(centred, self.weight), self.taper)
