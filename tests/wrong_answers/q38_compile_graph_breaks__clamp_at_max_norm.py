"""Wrong: scales by clamp(max_norm / norm, max=1), which at norm == max_norm exactly lets a
gradient flow through norm where the eager `if` does not scale."""

import torch

from solutions.q38_compile_graph_breaks import count_graph_breaks  # the rest as in the reference


def clipped_residual(x, weight, max_norm=1.0):
    h = x @ weight
    norm = h.norm()
    scale = torch.clamp(max_norm / norm, max=1.0)
    return x + torch.relu(h * scale), norm
