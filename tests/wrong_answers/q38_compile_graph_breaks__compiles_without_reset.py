"""Wrong: counts the graphs a recording backend receives from torch.compile and never resets
Dynamo, so a second call on the same function runs the cached code and counts no breaks."""

import torch

from solutions.q38_compile_graph_breaks import clipped_residual

_graphs = []


def _recording_backend(graph_module, example_inputs):
    _graphs.append(graph_module)
    return graph_module.forward


def count_graph_breaks(fn, *args):
    _graphs.clear()
    torch.compile(fn, backend=_recording_backend)(*args)
    return max(len(_graphs) - 1, 0)
