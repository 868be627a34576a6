"""Wrong: counts each tensor's whole storage, so a view counts the buffer it looks into."""

import torch

from solutions.q19_sgd_by_hand import SGD, race_in_a_valley


def optimizer_state_bytes(optimizer):
    total = 0
    for entries in optimizer.state.values():
        for value in entries.values():
            for tensor in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(tensor, torch.Tensor):
                    total += tensor.untyped_storage().nbytes()
    return total
