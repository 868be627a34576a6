"""Batch mean as a float32-or-wider sum divided by the row count, then copy_ into the buffer."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = num_features
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("taper", torch.linspace(1.0, 0.5, num_features), persistent=False)

    def _batch_mean(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, self.num_features)
        acc = torch.promote_types(x.dtype, torch.float32)
        total = rows.sum(dim=0, dtype=acc)
        return (total / rows.shape[0]).to(x.dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim == 0 or x.shape[-1] != self.num_features:
            raise ValueError(f"last dimension must be {self.num_features}")
        if self.training:
            with torch.no_grad():
                m = self._batch_mean(x)
                updated = (1 - self.momentum) * self.running_mean + self.momentum * m
                self.running_mean.copy_(updated)
        scale = self.weight * self.taper
        return (x - self.running_mean) * scale
