"""One exp(-|x|) for both softplus branches, Sequential.append, softmax by a getattr table."""

import torch
import torch.nn.functional as F
from torch import nn

# log=False/True -> the torch function that computes it.
_NORMALISERS = {False: "softmax", True: "log_softmax"}
_LOW_PRECISION = (torch.float16, torch.bfloat16)


def softplus(x: torch.Tensor) -> torch.Tensor:
    # -|x|, spelled so that x = 0 takes the identity branch (gradient 1, not abs's 0).
    negative_part = torch.where(x > 0, -x, x)
    tail = torch.log1p(torch.exp(negative_part))  # never exp of a large number
    return torch.where(x > 0, x + tail, tail)


def mlp(features: int, hidden: int, classes: int) -> nn.Sequential:
    model = nn.Sequential()
    model.append(nn.Linear(features, hidden))
    model.append(nn.ReLU(inplace=True))
    model.append(nn.Linear(hidden, hidden))
    model.append(nn.GELU(approximate="tanh"))
    model.append(nn.Linear(hidden, classes))
    return model


class PreActivationBlock(nn.Module):
    def __init__(self, features: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc1(torch.relu(x))
        h.relu_()
        return torch.add(x, self.fc2(h))


def class_probabilities(logits: torch.Tensor, layout: str, log: bool = False) -> torch.Tensor:
    if len(layout) != logits.dim():
        raise ValueError(f"layout {layout!r} has {len(layout)} letters for {logits.dim()} dims")
    if layout.count("C") != 1:
        raise ValueError(f"layout {layout!r} must hold exactly one 'C'")
    dim = layout.index("C")
    normalise = getattr(F, _NORMALISERS[bool(log)])
    if logits.dtype in _LOW_PRECISION:
        return normalise(logits, dim=dim, dtype=torch.float32).to(logits.dtype)
    return normalise(logits, dim=dim)
