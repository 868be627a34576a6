"""Wrong: reads optimizer.state[p] for every parameter, adding empty entries to the state."""

import torch

from solutions.q19_sgd_by_hand import SGD, race_in_a_valley


def optimizer_state_bytes(optimizer):
    total = 0
    for group in optimizer.param_groups:
        for param in group["params"]:
            for value in optimizer.state[param].values():
                for tensor in value if isinstance(value, (list, tuple)) else (value,):
                    if isinstance(tensor, torch.Tensor):
                        total += tensor.numel() * tensor.element_size()
    return total
