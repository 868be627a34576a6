"""Correct: the norm compared exactly with the threshold (norm.item()), not rounded to the dtype."""

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
    h, steps = x, 0
    # Plain Python control flow: each run records only the layers it actually applied.
    # The norm test reads a value (a sync on accelerators) but adds nothing to the graph.
    while steps < max_steps and torch.linalg.vector_norm(h).item() >= threshold:
        h = layer(h)
        steps += 1
    return h, steps


def graph_size(t: torch.Tensor) -> int:
    if t.grad_fn is None:
        return 0
    # Iterative depth-first walk; the set holds the nodes themselves, so each is counted once
    # and none is freed (and its id reused) while we walk.
    seen = {t.grad_fn}
    stack = [t.grad_fn]
    while stack:
        node = stack.pop()
        for parent, _ in node.next_functions:
            if parent is not None and parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return len(seen)
