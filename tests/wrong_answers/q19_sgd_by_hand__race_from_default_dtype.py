"""Wrong: each x starts as ones in the default dtype, not in scales' dtype."""

import torch

from solutions.q19_sgd_by_hand import SGD, optimizer_state_bytes


def _descend(scales, steps, make_optimizer):
    x = torch.ones(scales.shape, device=scales.device, requires_grad=True)
    optimizer = make_optimizer([x])
    for _ in range(steps):
        optimizer.zero_grad()
        (0.5 * (scales * x**2).sum()).backward()
        optimizer.step()
    return x.detach()


def race_in_a_valley(scales, steps=100):
    lr = 1 / scales.max().item()
    return {
        "sgd": _descend(scales, steps, lambda p: torch.optim.SGD(p, lr=lr)),
        "momentum": _descend(scales, steps, lambda p: torch.optim.SGD(p, lr=lr, momentum=0.9)),
        "adam": _descend(scales, steps, lambda p: torch.optim.Adam(p, lr=0.1)),
    }
