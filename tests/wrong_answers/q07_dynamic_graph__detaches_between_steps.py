"""Wrong: detaches h after every layer "to save memory", cutting the graph between steps."""

import torch

from solutions.q07_dynamic_graph import graph_size  # the rest as in the reference


def apply_until_small(layer, x, threshold, max_steps):
    if max_steps < 0:
        raise ValueError("max_steps must be >= 0")
    h, steps = x, 0
    while steps < max_steps and torch.linalg.vector_norm(h) >= threshold:
        h = layer(h if steps == 0 else h.detach())
        steps += 1
    return h, steps
