"""The running mean moved with lerp_ under no_grad; a num_features property, extra_repr."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.momentum = momentum
        # No device or dtype passed: torch's defaults (set_default_device/dtype) decide.
        self.weight = nn.Parameter(torch.ones(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("taper", torch.linspace(1.0, 0.5, num_features), persistent=False)

    @property
    def num_features(self) -> int:
        return self.weight.shape[0]

    def extra_repr(self) -> str:
        return f"{self.num_features}, momentum={self.momentum}"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.num_features:
            raise ValueError(
                f"expected {self.num_features} features in the last dimension, "
                f"got shape {tuple(x.shape)}"
            )
        if self.training:
            with torch.no_grad():
                batch_mean = x.reshape(-1, self.num_features).mean(dim=0)
                # running_mean + momentum * (m - running_mean), in the buffer's own memory
                self.running_mean.lerp_(batch_mean, self.momentum)
        return (x - self.running_mean) * self.weight * self.taper
