"""Wrong: enters the hooks by hand, so they stay installed when fn raises."""

import torch

from solutions.q49_gpu_memory import checkpointed_forward  # the rest as in the reference


def saved_bytes(fn, *args):
    storages = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        storages[id(storage)] = storage
        return tensor

    hooks = torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor)
    hooks.__enter__()
    fn(*args)
    hooks.__exit__(None, None, None)
    return sum(storage.nbytes() for storage in storages.values())
