"""torch.where for the softplus branches, Linear layers from a table of widths, ReLUs as tensor
methods, early returns per mode."""

import itertools

import torch
from torch import nn


def softplus(x: torch.Tensor) -> torch.Tensor:
    # Each branch gets inputs where its exp cannot overflow, so neither gradient is nan.
    positive = x > 0
    above = torch.where(positive, x, torch.zeros_like(x))
    below = torch.where(positive, torch.zeros_like(x), x)
    return torch.where(
        positive, above + torch.log1p(torch.exp(-above)), torch.log1p(torch.exp(below))
    )


def mlp(features: int, hidden: int, classes: int) -> nn.Sequential:
    first, second, third = (
        nn.Linear(a, b) for a, b in itertools.pairwise((features, hidden, hidden, classes))
    )
    # A Linear's backward needs its input, not its output: the ReLU after it may overwrite.
    return nn.Sequential(first, nn.ReLU(inplace=True), second, nn.GELU(approximate="tanh"), third)


class PreActivationBlock(nn.Module):
    def __init__(self, features: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The skip connection (and maybe x's own backward) reads x again: out of place.
        # Nothing else reads fc1's fresh output: in place.
        return x + self.fc2(self.fc1(x.relu()).relu_())


def class_probabilities(logits: torch.Tensor, layout: str, log: bool = False) -> torch.Tensor:
    if len(layout) != logits.ndim:
        raise ValueError(f"layout {layout!r} names {len(layout)} dims, logits have {logits.ndim}")
    if layout.count("C") != 1:
        raise ValueError(f"layout {layout!r} needs exactly one 'C', the class dim")
    dim = layout.index("C")
    if log:
        return logits.log_softmax(dim)
    return logits.softmax(dim)
