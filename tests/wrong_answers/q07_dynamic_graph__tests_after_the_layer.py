"""Wrong: applies the layer first and tests the norm afterwards, so at least one step runs."""

import torch

from solutions.q07_dynamic_graph import graph_size  # the rest as in the reference


def apply_until_small(layer, x, threshold, max_steps):
    if max_steps < 0:
        raise ValueError("max_steps must be >= 0")
    h, steps = x, 0
    while steps < max_steps:
        h = layer(h)
        steps += 1
        if torch.linalg.vector_norm(h) < threshold:
            break
    return h, steps
