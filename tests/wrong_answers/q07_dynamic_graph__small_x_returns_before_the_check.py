"""Wrong: returns an x that is already small before checking max_steps, so a negative
max_steps is accepted whenever no layer would run."""

import torch

from solutions.q07_dynamic_graph import graph_size


def apply_until_small(layer, x, threshold, max_steps):
    if torch.linalg.vector_norm(x) < threshold:
        return x, 0  # already small: nothing to do
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    h, steps = x, 0
    while steps < max_steps and torch.linalg.vector_norm(h) >= threshold:
        h = layer(h)
        steps += 1
    return h, steps
