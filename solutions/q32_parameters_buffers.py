"""Kata 32: nn.Parameter, buffers and plain tensor attributes (reference answer)."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = num_features
        self.momentum = momentum
        # Learnable: listed by parameters(), so the optimizer sees it; saved; moved.
        self.weight = nn.Parameter(torch.ones(num_features))
        # Learned from data but not by gradients: a buffer, saved with the model.
        self.register_buffer("running_mean", torch.zeros(num_features))
        # Derived from num_features alone: moved with the module, but not saved.
        self.register_buffer("taper", torch.linspace(1.0, 0.5, num_features), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() == 0 or x.shape[-1] != self.num_features:
            raise ValueError(
                f"expected {self.num_features} features in the last dimension, "
                f"got shape {tuple(x.shape)}"
            )
        if self.training:
            # In place and unrecorded: the buffer keeps its identity (and device), and no
            # graph links one batch's running mean to the next batch's backward.
            with torch.no_grad():
                batch_mean = x.reshape(-1, self.num_features).mean(dim=0)
                self.running_mean.lerp_(batch_mean, self.momentum)
        return (x - self.running_mean) * self.weight * self.taper
