"""Wrong: count_graph_breaks passes on explain's -1 for a function that makes no graph."""

import torch

from solutions.q38_compile_graph_breaks import clipped_residual

__all__ = ["clipped_residual", "count_graph_breaks"]


def count_graph_breaks(fn, *args):
    return torch._dynamo.explain(fn)(*args).graph_break_count
