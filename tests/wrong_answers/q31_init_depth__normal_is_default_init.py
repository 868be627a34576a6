"""Wrong: for init="normal" keeps PyTorch's default Linear initialisation (std about
1 / sqrt(3 · fan_in)) instead of drawing the weights from N(0, 1)."""

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
        if init == "xavier":
            nn.init.xavier_uniform_(linear.weight)
        elif init == "kaiming":
            nn.init.kaiming_uniform_(linear.weight, nonlinearity="relu")
        layers += [linear, nn.ReLU() if activation == "relu" else nn.Tanh()]
    return nn.Sequential(*layers)
