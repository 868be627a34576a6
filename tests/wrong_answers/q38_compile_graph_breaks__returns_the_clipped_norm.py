"""Wrong: returns the norm of h after clipping instead of the norm before it."""

import torch

from solutions.q38_compile_graph_breaks import count_graph_breaks  # the rest as in the reference


def clipped_residual(x, weight, max_norm=1.0):
    h = x @ weight
    h = h * torch.clamp(max_norm / h.norm(), max=1.0)
    return x + torch.relu(h), h.norm()
