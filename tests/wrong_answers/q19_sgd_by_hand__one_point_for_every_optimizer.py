"""Wrong: the three optimizers take turns on one x, so each starts where the last one stopped."""

import torch

from solutions.q19_sgd_by_hand import SGD, optimizer_state_bytes


def race_in_a_valley(scales, steps=100):
    x = torch.ones_like(scales, requires_grad=True)
    lr = 1 / scales.max().item()
    optimizers = {
        "sgd": torch.optim.SGD([x], lr=lr),
        "momentum": torch.optim.SGD([x], lr=lr, momentum=0.9),
        "adam": torch.optim.Adam([x], lr=0.1),
    }
    reached = {}
    for name, optimizer in optimizers.items():
        for _ in range(steps):
            optimizer.zero_grad()
            (0.5 * (scales * x**2).sum()).backward()
            optimizer.step()
        reached[name] = x.detach().clone()
    return reached
