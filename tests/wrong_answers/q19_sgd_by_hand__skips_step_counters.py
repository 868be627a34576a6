"""Wrong: counts only the buffers shaped like the parameters, missing Adam's 0-dim step counters."""

import torch

from solutions.q19_sgd_by_hand import SGD, race_in_a_valley


def optimizer_state_bytes(optimizer):
    total = 0
    for entries in optimizer.state.values():
        for value in entries.values():
            for tensor in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(tensor, torch.Tensor) and tensor.dim() > 0:
                    total += tensor.numel() * tensor.element_size()
    return total
