"""Wrong: keeps the weights as plain tensors with requires_grad, not nn.Parameter, so the
module never registers them: parameters() is empty and .to() leaves them behind."""

import math
from itertools import pairwise

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, sizes, activation=nn.ReLU, dropout=0.0):
        super().__init__()
        sizes = list(sizes)
        if len(sizes) < 2 or any(size < 1 for size in sizes):
            raise ValueError("sizes must be at least two positive ints")
        if not 0.0 <= dropout < 1.0:
            raise ValueError("dropout must be in [0, 1)")
        self.weights, self.biases = [], []
        for fan_in, fan_out in pairwise(sizes):
            bound = 1 / math.sqrt(fan_in)
            self.weights.append((torch.rand(fan_out, fan_in) * 2 - 1).mul(bound).requires_grad_())
            self.biases.append((torch.rand(fan_out) * 2 - 1).mul(bound).requires_grad_())
        self.activation = activation()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        for weight, bias in zip(self.weights[:-1], self.biases[:-1], strict=True):
            x = self.dropout(self.activation(x @ weight.T + bias))
        return x @ self.weights[-1].T + self.biases[-1]
