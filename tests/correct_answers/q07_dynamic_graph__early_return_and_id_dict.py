"""Correct: a for loop that returns early, and a walk that keeps the nodes in a dict by id."""

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
    for step in range(max_steps):
        if not bool(torch.linalg.vector_norm(h) >= threshold):
            return h, step
        h = layer(h)
    return h, max_steps


def graph_size(t: torch.Tensor) -> int:
    root = t.grad_fn
    if root is None:
        return 0
    found = {id(root): root}
    todo = [root]
    while todo:
        for parent, _ in todo.pop().next_functions:
            if parent is not None and id(parent) not in found:
                found[id(parent)] = parent
                todo.append(parent)
    return len(found)
