"""Correct: softplus from two clamped branches, named layers, softmax with classes moved last."""

from collections import OrderedDict

import torch
from torch import nn


def softplus(x: torch.Tensor) -> torch.Tensor:
    positive = x > 0
    # each branch sees only values where it is finite: exp of a non-positive number
    upper = x.clamp(min=0) + torch.log1p(torch.exp(-x.clamp(min=0)))
    lower = torch.log1p(torch.exp(x.clamp(max=0)))
    return torch.where(positive, upper, lower)


def mlp(features: int, hidden: int, classes: int) -> nn.Sequential:
    return nn.Sequential(
        OrderedDict(
            [
                ("fc1", nn.Linear(features, hidden)),
                ("act1", nn.ReLU(inplace=True)),
                ("fc2", nn.Linear(hidden, hidden)),
                ("act2", nn.GELU(approximate="tanh")),
                ("head", nn.Linear(hidden, classes)),
            ]
        )
    )


class PreActivationBlock(nn.Module):
    def __init__(self, features: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc1(x.relu())
        h.relu_()
        return self.fc2(h) + x


def class_probabilities(logits: torch.Tensor, layout: str, log: bool = False) -> torch.Tensor:
    if len(layout) != logits.ndim or layout.count("C") != 1:
        raise ValueError("bad layout")
    dim = layout.find("C")
    last = logits.movedim(dim, -1)
    if logits.dtype in (torch.float16, torch.bfloat16):
        last = last.float()
    shifted = last - last.amax(dim=-1, keepdim=True)
    log_p = shifted - shifted.exp().sum(dim=-1, keepdim=True).log()
    out = log_p if log else log_p.exp()
    return out.to(logits.dtype).movedim(-1, dim)
