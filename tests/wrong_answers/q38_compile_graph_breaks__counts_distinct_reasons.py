"""Wrong: counts the distinct break reasons, so two breaks for the same reason count once."""

import torch

from solutions.q38_compile_graph_breaks import clipped_residual

__all__ = ["clipped_residual", "count_graph_breaks"]


def count_graph_breaks(fn, *args):
    explanation = torch._dynamo.explain(fn)(*args)
    return len({reason.reason for reason in explanation.break_reasons})
