"""A for loop with an early break, the graph walked breadth first with a deque and sets."""

import collections
from collections.abc import Callable

import torch


def apply_until_small(
    layer: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    threshold: float,
    max_steps: int,
) -> tuple[torch.Tensor, int]:
    if max_steps < 0:
        raise ValueError("max_steps must not be negative")
    done = 0
    for _ in range(max_steps):
        if x.norm() < threshold:
            break
        x = layer(x)
        done += 1
    return x, done


def graph_size(t: torch.Tensor) -> int:
    if t.grad_fn is None:
        return 0
    seen = {t.grad_fn}
    queue = collections.deque(seen)
    while queue:
        parents = (parent for parent, _ in queue.popleft().next_functions)
        fresh = {parent for parent in parents if parent is not None} - seen
        seen |= fresh
        queue.extend(fresh)
    return len(seen)
