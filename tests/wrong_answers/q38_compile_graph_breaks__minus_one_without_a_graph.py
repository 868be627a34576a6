"""Wrong: count_graph_breaks passes on explain's -1 for a function that makes no graph."""

import torch

from solutions.q38_compile_graph_breaks import clipped_residual  # the rest as in the reference


def count_graph_breaks(fn, *args):
    return torch._dynamo.explain(fn)(*args).graph_break_count
