"""Wrong: count_graph_breaks runs fn eagerly first (to check that it works), then again
under explain, so fn's side effects happen twice."""

import torch

from solutions.q38_compile_graph_breaks import clipped_residual  # the rest as in the reference


def count_graph_breaks(fn, *args):
    fn(*args)
    return max(torch._dynamo.explain(fn)(*args).graph_break_count, 0)
