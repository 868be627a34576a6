"""Wrong: skips saved nn.Parameters, as if they were not held for backward."""

import torch
from torch import nn

from solutions.q49_gpu_memory import checkpointed_forward  # the rest as in the reference


def saved_bytes(fn, *args):
    storages = {}

    def pack(tensor):
        if not isinstance(tensor, nn.Parameter):
            storage = tensor.untyped_storage()
            storages[id(storage)] = storage
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*args)
    return sum(storage.nbytes() for storage in storages.values())
