"""Wrong: checks the number of features only where training updates the running mean, so in
eval mode an input with one feature broadcasts against the buffers silently."""

import torch

from solutions.q32_parameters_buffers import CenterAndScale as Reference


class CenterAndScale(Reference):
    def forward(self, x):
        if self.training:
            if x.shape[-1] != self.num_features:
                raise ValueError(f"expected {self.num_features} features, got {x.shape[-1]}")
            with torch.no_grad():
                batch_mean = x.reshape(-1, self.num_features).mean(dim=0)
                self.running_mean.lerp_(batch_mean, self.momentum)
        return (x - self.running_mean) * self.weight * self.taper
