"""maximum(x, 0) + log1p(exp(-|x|)), a named Sequential, getattr of an f-string for softmax."""

import logging
from collections import OrderedDict

import torch
from torch import nn
from torch.nn import functional as F

log = logging.getLogger(__name__)


def softplus(x: torch.Tensor) -> torch.Tensor:
    # max(x, 0) + log1p(exp(-|x|)), where max splits the gradient at the tie as torch.maximum does.
    zero = torch.zeros_like(x)
    return torch.maximum(x, zero) + torch.log1p(torch.exp(-torch.abs(x)))


def mlp(features: int, hidden: int, classes: int) -> nn.Sequential:
    return nn.Sequential(
        OrderedDict(
            fc_in=nn.Linear(features, hidden),
            relu=nn.ReLU(inplace=True),
            fc_mid=nn.Linear(hidden, hidden),
            gelu=nn.GELU(approximate="tanh"),
            fc_out=nn.Linear(hidden, classes),
        )
    )


class PreActivationBlock(nn.Module):
    def __init__(self, features: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc1(torch.relu(x))
        return x + self.fc2(h.relu_())


def class_probabilities(logits: torch.Tensor, layout: str, log: bool = False) -> torch.Tensor:
    if len(layout) != logits.dim():
        raise ValueError(f"layout {layout!r} does not match {logits.dim()} dims")
    if layout.count("C") != 1:
        raise ValueError(f"layout {layout!r} needs exactly one 'C'")
    dim = layout.index("C")
    fn = getattr(F, f"{'log_' if log else ''}softmax")
    if logits.dtype in (torch.float16, torch.bfloat16):
        return fn(logits.float(), dim=dim).to(logits.dtype)
    return fn(logits, dim=dim)
