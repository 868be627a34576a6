"""Wrong: creates the Linear layers in float32 explicitly instead of the default dtype."""

import torch
from torch import nn

from solutions.q31_init_depth import (  # the rest as in the reference
    _ACTIVATIONS,
    activation_stds,
    relu_std_ratio,
)


def deep_stack(
    depth: int,
    width: int,
    activation: str,
    init: str,
    *,
    device: torch.device | str | None = None,
) -> nn.Sequential:
    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)}, got {activation!r}")
    if init not in ("normal", "xavier", "kaiming"):
        raise ValueError(f"init must be 'normal', 'xavier' or 'kaiming', got {init!r}")
    if depth < 1 or width < 1:
        raise ValueError(f"depth and width must be at least 1, got {depth} and {width}")
    layers: list[nn.Module] = []
    for _ in range(depth):
        linear = nn.Linear(width, width, bias=False, device=device, dtype=torch.float32)
        if init == "normal":
            nn.init.normal_(linear.weight, mean=0.0, std=1.0)
        elif init == "xavier":
            nn.init.xavier_normal_(linear.weight)
        else:
            nn.init.kaiming_normal_(linear.weight, nonlinearity="relu")
        layers += [linear, _ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)
