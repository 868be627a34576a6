"""Wrong: checks only that weight has at least two dims and a matching last dim, so a
3-D weight is taken for a batch of weights."""

import torch

from solutions.q11_layer_shapes import (  # the rest as in the reference
    conv2d_output_shape,
    lstm_final_states,
    padded_attention,
)


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    if weight.dim() < 2 or x.shape[-1] != weight.shape[-1]:
        raise ValueError(
            f"x {tuple(x.shape)} and weight {tuple(weight.shape)} don't fit: "
            "weight must be [out, in] with in == x.shape[-1]"
        )
    if bias is not None and bias.shape != weight.shape[:1]:
        raise ValueError(f"bias must have shape {tuple(weight.shape[:1])}, got {bias.shape}")
    # matmul broadcasts over all leading dims of x; weight.T is a view, not a copy.
    y = x @ weight.mT
    return y if bias is None else y + bias
