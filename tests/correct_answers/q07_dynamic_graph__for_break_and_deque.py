"""Correct: a for loop with break, and a breadth-first walk over a deque."""

from collections import deque
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
    h = x
    taken = 0
    for _ in range(max_steps):
        if torch.linalg.vector_norm(h).item() < threshold:
            break
        h = layer(h)
        taken += 1
    return h, taken


def graph_size(t: torch.Tensor) -> int:
    root = t.grad_fn
    if root is None:
        return 0
    seen = [root]
    known = {root}
    queue = deque([root])
    while queue:
        for parent, _ in queue.popleft().next_functions:
            if parent is not None and parent not in known:
                known.add(parent)
                seen.append(parent)
                queue.append(parent)
    return len(seen)
