"""apply_until_small compares the norm exactly as a Python float (math.isnan stops
at NaN) under a while True; graph_size expands the graph a level at a time with sets."""

import math
from collections.abc import Callable

import torch


def apply_until_small(
    layer: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    threshold: float,
    max_steps: int,
) -> tuple[torch.Tensor, int]:
    if not max_steps >= 0:
        raise ValueError("max_steps must not be negative")
    h, steps = x, 0
    while True:
        if steps >= max_steps:
            break
        norm = float(torch.linalg.vector_norm(h).item())
        if math.isnan(norm) or norm < threshold:
            break
        h = layer(h)
        steps += 1
    return h, steps


def graph_size(t: torch.Tensor) -> int:
    if t.grad_fn is None:
        return 0
    seen = {t.grad_fn}
    level = [t.grad_fn]
    while level:
        following = []
        for node in level:
            for child, _index in node.next_functions:
                if child is None or child in seen:
                    continue
                seen.add(child)
                following.append(child)
        level = following
    return len(seen)
