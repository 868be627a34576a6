"""Wrong: selects between max_norm / norm and 1 with torch.where; the branch not taken still
backpropagates, and for a tiny h its overflowing gradient gives 0 * inf = nan."""

import torch

from solutions.q38_compile_graph_breaks import count_graph_breaks  # the rest as in the reference


def clipped_residual(x, weight, max_norm=1.0):
    h = x @ weight
    norm = h.norm()
    scale = torch.where(norm > max_norm, max_norm / norm, 1.0)
    return x + torch.relu(h * scale), norm
