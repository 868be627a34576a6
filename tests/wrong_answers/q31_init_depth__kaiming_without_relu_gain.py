"""Wrong: "kaiming" uses std sqrt(1 / fan_in), leaving out the factor 2 that makes up for
ReLU zeroing half of its input, so a deep ReLU stack still fades away."""

import torch
from torch import nn

from solutions.q31_init_depth import activation_stds, relu_std_ratio  # the rest as in the reference


def deep_stack(depth, width, activation, init, *, device=None):
    if activation not in ("relu", "tanh") or init not in ("normal", "xavier", "kaiming"):
        raise ValueError("unknown activation or init")
    if depth < 1 or width < 1:
        raise ValueError("depth and width must be at least 1")
    layers = []
    for _ in range(depth):
        linear = nn.Linear(width, width, bias=False, device=device)
        with torch.no_grad():
            std = 1.0 if init == "normal" else (1 / width) ** 0.5
            linear.weight.normal_(0.0, std)
        layers += [linear, nn.ReLU() if activation == "relu" else nn.Tanh()]
    return nn.Sequential(*layers)
