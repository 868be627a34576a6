"""Correct: a for loop over range(max_steps) with an early return, and a depth-first walk
with a list as stack."""

from collections.abc import Callable

import torch


def apply_until_small(
    layer: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    threshold: float,
    max_steps: int,
) -> tuple[torch.Tensor, int]:
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    h = x
    for done in range(max_steps):
        if not bool(torch.linalg.vector_norm(h) >= threshold):
            return h, done
        h = layer(h)
    return h, max_steps


def graph_size(t: torch.Tensor) -> int:
    root = t.grad_fn
    if root is None:
        return 0
    seen = {root}
    stack = [root]
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return len(seen)
