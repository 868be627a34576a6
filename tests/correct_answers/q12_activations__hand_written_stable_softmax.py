"""Correct: class_probabilities as a hand-written stable softmax (the largest logit
subtracted, float32 inside for 16-bit logits); the class dimension is never empty."""

import torch
import torch.nn.functional as F
from torch import nn

# Above this, log1p(exp(x)) equals x to float64's precision (exp(-40) ~ 4e-18), and exp
# stays far from float32's overflow at about 88.
_LINEAR_ABOVE = 40.0


def softplus(x: torch.Tensor) -> torch.Tensor:
    # exp only ever sees values up to the threshold: torch.where sends a zero gradient to the
    # branch it does not pick, but 0 * inf is nan, so that branch must stay finite too.
    # log1p keeps exp(x) where it is far below 1, where 1 + exp(x) would round to 1.
    linear = x > _LINEAR_ABOVE
    return torch.where(linear, x, torch.log1p(torch.exp(x.clamp(max=_LINEAR_ABOVE))))


def mlp(features: int, hidden: int, classes: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(features, hidden),
        # Safe in place: Linear's backward needs its input and weight, not its output, and
        # ReLU's own backward needs only its result.
        nn.ReLU(inplace=True),
        nn.Linear(hidden, hidden),
        nn.GELU(approximate="tanh"),  # no inplace option: its backward needs its input
        nn.Linear(hidden, classes),  # logits: the loss applies (log_)softmax itself
    )


class PreActivationBlock(nn.Module):
    def __init__(self, features: int, hidden: int) -> None:
        super().__init__()
        # Only layers with parameters are registered; the activations are calls in forward.
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Out of place: the skip connection below reads x, the caller owns it, and the op
        # that made it may have saved it for its backward (tanh and sigmoid save their result).
        h = self.fc1(F.relu(x))
        # In place: nothing else reads fc1's output, so no second tensor is allocated.
        h = F.relu(h, inplace=True)
        return x + self.fc2(h)


def class_probabilities(logits: torch.Tensor, layout: str, log: bool = False) -> torch.Tensor:
    if len(layout) != logits.dim() or layout.count("C") != 1:
        raise ValueError(
            f"layout {layout!r} should name each of the {logits.dim()} dimensions of the "
            "logits once, with one C for the classes"
        )
    dim = layout.index("C")
    # log_softmax subtracts a log-sum-exp: finite where log(softmax(...)) underflows to -inf.
    x = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    shifted = x - x.amax(dim=dim, keepdim=True)
    lse = shifted.exp().sum(dim=dim, keepdim=True).log()
    out = shifted - lse if log else (shifted - lse).exp()
    return out.to(logits.dtype)
