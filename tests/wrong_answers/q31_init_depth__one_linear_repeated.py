"""Wrong: repeats one [Linear, activation] pair depth times (a list times depth), so every
layer is the same module with the same weight matrix."""

from torch import nn

from solutions.q31_init_depth import (  # the rest as in the reference
    _ACTIVATIONS,
    activation_stds,
    relu_std_ratio,
)


def deep_stack(depth, width, activation, init, *, device=None):
    if activation not in _ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}")
    if init not in ("normal", "xavier", "kaiming"):
        raise ValueError(f"unknown init {init!r}")
    if depth < 1 or width < 1:
        raise ValueError("depth and width must be at least 1")
    linear = nn.Linear(width, width, bias=False, device=device)
    if init == "normal":
        nn.init.normal_(linear.weight, mean=0.0, std=1.0)
    elif init == "xavier":
        nn.init.xavier_normal_(linear.weight)
    else:
        nn.init.kaiming_normal_(linear.weight, nonlinearity="relu")
    return nn.Sequential(*[linear, _ACTIVATIONS[activation]()] * depth)
