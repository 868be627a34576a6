"""Wrong: adds up every tensor packed, so a tensor saved by two operations counts twice."""

import torch

from solutions.q49_gpu_memory import checkpointed_forward  # the rest as in the reference


def saved_bytes(fn, *args):
    total = 0

    def pack(tensor):
        nonlocal total
        total += tensor.numel() * tensor.element_size()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*args)
    return total
