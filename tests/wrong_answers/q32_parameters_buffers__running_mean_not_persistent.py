"""Wrong: registers running_mean with persistent=False, so checkpoints lose it."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features, momentum=0.1):
        super().__init__()
        self.num_features, self.momentum = num_features, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features), persistent=False)
        self.register_buffer("taper", torch.linspace(1.0, 0.5, num_features), persistent=False)

    def forward(self, x):
        if x.shape[-1] != self.num_features:
            raise ValueError("wrong number of features")
        if self.training:
            with torch.no_grad():
                self.running_mean.lerp_(x.reshape(-1, self.num_features).mean(0), self.momentum)
        return (x - self.running_mean) * self.weight * self.taper
