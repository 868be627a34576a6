"""A while loop whose norm is taken under torch.no_grad and compared as a tensor;
a depth-first walk with a stack of iterators over next_functions."""

from collections.abc import Callable, Iterator
from typing import Any

import torch


def _norm_is_large(h: torch.Tensor, threshold: float) -> bool:
    with torch.no_grad():
        return bool(torch.linalg.vector_norm(h) >= threshold)


def apply_until_small(
    layer: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    threshold: float,
    max_steps: int,
) -> tuple[torch.Tensor, int]:
    if not max_steps >= 0:
        raise ValueError("max_steps must not be negative")
    h, steps = x, 0
    while steps < max_steps and _norm_is_large(h, threshold):
        h = layer(h)
        steps += 1
    return h, steps


def graph_size(t: torch.Tensor) -> int:
    if t.grad_fn is None:
        return 0
    visited = {t.grad_fn}
    stack: list[Iterator[tuple[Any, int]]] = [iter(t.grad_fn.next_functions)]
    while stack:
        edge = next(stack[-1], None)
        if edge is None:
            stack.pop()
            continue
        child = edge[0]
        if child is None or child in visited:
            continue
        visited.add(child)
        stack.append(iter(child.next_functions))
    return len(visited)
