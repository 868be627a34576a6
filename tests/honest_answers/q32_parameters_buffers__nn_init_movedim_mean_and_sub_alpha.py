"""Parameter and buffers made empty and filled by nn.init; the batch mean taken over a
movedim/flatten layout; the running mean moved by sub_ with alpha in a no_grad method."""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.momentum = momentum
        self.weight = nn.Parameter(torch.empty(num_features))
        nn.init.ones_(self.weight)
        self.register_buffer("running_mean", nn.init.zeros_(torch.empty(num_features)))
        taper = torch.linspace(1.0, 0.5, num_features)
        self.register_buffer("taper", taper, persistent=False)

    @torch.no_grad()
    def _track(self, x: torch.Tensor) -> None:
        # features first, every other dimension flattened into one: [F, rows]
        per_feature = x.unsqueeze(0).movedim(-1, 0).flatten(1)
        batch_mean = per_feature.mean(dim=1)
        # r - momentum * (r - m) == (1 - momentum) * r + momentum * m
        self.running_mean.sub_(self.running_mean - batch_mean, alpha=self.momentum)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        expected = self.weight.numel()
        if x.size(-1) != expected:
            raise ValueError(f"last dimension must be {expected}, got {x.size(-1)}")
        if self.training:
            self._track(x)
        return torch.mul(torch.mul(x - self.running_mean, self.weight), self.taper)
