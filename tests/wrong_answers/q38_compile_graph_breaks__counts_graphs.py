"""Wrong: count_graph_breaks returns the number of graphs, one more than the breaks."""

import torch

from solutions.q38_compile_graph_breaks import clipped_residual  # the rest as in the reference


def count_graph_breaks(fn, *args):
    return torch._dynamo.explain(fn)(*args).graph_count
