"""A for loop over range(max_steps) that breaks once the norm is below the threshold (a NaN norm
is never below it, so NaN goes on to max_steps); graph_size expands level by level with sets."""

from collections.abc import Callable

import torch


def apply_until_small(
    layer: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    threshold: float,
    max_steps: int,
) -> tuple[torch.Tensor, int]:
    if max_steps < 0:
        raise ValueError(f"max_steps={max_steps}: it must be 0 or more")
    h = x
    steps = 0
    for _ in range(max_steps):
        if torch.linalg.vector_norm(h.detach()) < threshold:
            break
        h = layer(h)
        steps += 1
    return h, steps


def graph_size(t: torch.Tensor) -> int:
    if t.grad_fn is None:
        return 0
    seen = {t.grad_fn}
    frontier = {t.grad_fn}
    while frontier:
        following = {
            child for node in frontier for child, _ in node.next_functions if child is not None
        }
        frontier = following - seen
        seen |= frontier
    return len(seen)
