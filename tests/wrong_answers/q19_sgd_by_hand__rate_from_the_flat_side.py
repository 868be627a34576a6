"""Wrong: sets SGD's rate from the flattest curvature, which diverges along the steepest."""

import torch

from solutions.q19_sgd_by_hand import SGD, _descend, optimizer_state_bytes


def race_in_a_valley(scales, steps=100):
    lr = 1 / scales.min().item()
    return {
        "sgd": _descend(scales, steps, lambda p: torch.optim.SGD(p, lr=lr)),
        "momentum": _descend(scales, steps, lambda p: torch.optim.SGD(p, lr=lr, momentum=0.9)),
        "adam": _descend(scales, steps, lambda p: torch.optim.Adam(p, lr=0.1)),
    }
