"""softplus as an autograd.Function; named layers in an OrderedDict; dict dispatch."""

from collections import OrderedDict
from typing import Any

import torch
from torch import nn


class _Softplus(torch.autograd.Function):
    """log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)); its derivative is sigmoid(x)."""

    @staticmethod
    def forward(x: torch.Tensor) -> torch.Tensor:
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[torch.Tensor], output: torch.Tensor) -> None:
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        # Written with differentiable ops, so a second derivative works too.
        return grad_output * torch.sigmoid(x)


def softplus(x: torch.Tensor) -> torch.Tensor:
    return _Softplus.apply(x)


def mlp(features: int, hidden: int, classes: int) -> nn.Sequential:
    return nn.Sequential(
        OrderedDict(
            fc1=nn.Linear(features, hidden),
            relu=nn.ReLU(inplace=True),
            fc2=nn.Linear(hidden, hidden),
            gelu=nn.GELU(approximate="tanh"),
            head=nn.Linear(hidden, classes),
        )
    )


class PreActivationBlock(nn.Module):
    def __init__(self, features: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc1(torch.relu(x))
        torch.relu_(h)  # h is ours and only fc2 reads it
        return x + self.fc2(h)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(fc1={self.fc1}, fc2={self.fc2})"


_NORMALISE = {False: torch.softmax, True: torch.log_softmax}


def class_probabilities(logits: torch.Tensor, layout: str, log: bool = False) -> torch.Tensor:
    if len(layout) != logits.dim() or layout.count("C") != 1:
        raise ValueError(
            f"layout {layout!r} must have one letter per dimension of logits "
            f"(shape {tuple(logits.shape)}) and exactly one 'C'"
        )
    # float16 and bfloat16 computed in float32, float32 and float64 as they are.
    compute = torch.promote_types(logits.dtype, torch.float32)
    out = _NORMALISE[bool(log)](logits, dim=layout.index("C"), dtype=compute)
    return out.to(logits.dtype)
