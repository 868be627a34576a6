"""Wrong: averages over dim=tuple(range(x.dim() - 1)), which for an input without a batch
dimension is dim=() and so averages over everything, features included."""

import torch

from solutions.q32_parameters_buffers import CenterAndScale as Reference


class CenterAndScale(Reference):
    def forward(self, x):
        if x.shape[-1] != self.num_features:
            raise ValueError(f"expected {self.num_features} features, got {x.shape[-1]}")
        if self.training:
            with torch.no_grad():
                batch_mean = x.mean(dim=tuple(range(x.dim() - 1)))
                self.running_mean.lerp_(batch_mean, self.momentum)
        return (x - self.running_mean) * self.weight * self.taper
