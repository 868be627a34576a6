"""Wrong: replaces the branch by always rescaling h to norm max_norm, which also scales small
activations up."""

import torch

from solutions.q38_compile_graph_breaks import count_graph_breaks  # the rest as in the reference


def clipped_residual(x, weight, max_norm=1.0):
    h = x @ weight
    norm = h.norm()
    return x + torch.relu(h * (max_norm / norm.clamp_min(1e-12))), norm
