"""Wrong: assigns a new tensor to running_mean at every training step instead of updating
the buffer in place, so anything holding the buffer keeps the stale one."""

from solutions.q32_parameters_buffers import CenterAndScale as Reference


class CenterAndScale(Reference):
    def forward(self, x):
        if x.shape[-1] != self.num_features:
            raise ValueError(f"expected {self.num_features} features, got {x.shape[-1]}")
        if self.training:
            batch_mean = x.detach().reshape(-1, self.num_features).mean(dim=0)
            self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * batch_mean
        return (x - self.running_mean) * self.weight * self.taper
