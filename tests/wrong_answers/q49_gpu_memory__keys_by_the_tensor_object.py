"""Wrong: keys by id(tensor), so two views of one storage count it twice."""

import torch

from solutions.q49_gpu_memory import checkpointed_forward  # the rest as in the reference


def saved_bytes(fn, *args):
    storages = {}

    def pack(tensor):
        storages[id(tensor)] = tensor.untyped_storage().nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*args)
    return sum(storages.values())
