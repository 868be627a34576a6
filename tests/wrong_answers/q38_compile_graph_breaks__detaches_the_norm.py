"""Wrong: detaches the norm in the scale (as if it were still a Python number), so gradients
no longer flow through it as in the eager version."""

import torch

from solutions.q38_compile_graph_breaks import count_graph_breaks  # the rest as in the reference


def clipped_residual(x, weight, max_norm=1.0):
    h = x @ weight
    norm = h.norm()
    scale = torch.clamp(max_norm / norm.detach(), max=1.0)
    return x + torch.relu(h * scale), norm
