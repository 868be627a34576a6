"""Correct: softplus as max(x, 0) + log1p(exp(-|x|)) (exp never sees a positive value),
the classifier as a Sequential of named layers, torch.relu and Tensor.relu_ in the block,
and softmax written out along the class dimension moved last."""

from collections import OrderedDict

import torch
from torch import nn


def softplus(x):
    # torch.maximum splits the gradient at the tie x = 0: 0.5, as sigmoid(0).
    return torch.maximum(x, torch.zeros_like(x)) + torch.log1p(torch.exp(-x.abs()))


def mlp(features, hidden, classes):
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
    def __init__(self, features, hidden):
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, features)

    def forward(self, x):
        return x + self.fc2(self.fc1(torch.relu(x)).relu_())


def class_probabilities(logits, layout, log=False):
    if len(layout) != logits.dim() or sorted(layout).count("C") != 1:
        raise ValueError(f"layout {layout!r} does not fit logits of shape {tuple(logits.shape)}")
    dim = layout.index("C")
    moved = logits.movedim(dim, -1)
    shifted = moved - moved.amax(dim=-1, keepdim=True)
    log_probs = shifted - shifted.exp().sum(dim=-1, keepdim=True).log()
    return (log_probs if log else log_probs.exp()).movedim(-1, dim)
