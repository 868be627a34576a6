"""An itertools.count loop with early returns; graph nodes from a generator, counted by sum."""

import itertools
from collections.abc import Callable, Iterator
from typing import Any

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
    for steps in itertools.count():
        if steps == max_steps:
            return h, steps
        norm = torch.linalg.vector_norm(h)
        if bool(norm < threshold) or bool(norm.isnan()):
            return h, steps
        h = layer(h)
    raise AssertionError("unreachable")


def _nodes(root: Any) -> Iterator[Any]:
    """Each node reachable from root, once; `seen` keeps them alive so ids stay unique."""
    seen: dict[int, Any] = {id(root): root}
    pending = [root]
    while pending:
        node = pending.pop()
        yield node
        for parent, _ in node.next_functions:
            if parent is not None and id(parent) not in seen:
                seen[id(parent)] = parent
                pending.append(parent)


def graph_size(t: torch.Tensor) -> int:
    if t.grad_fn is None:
        return 0
    return sum(1 for _ in _nodes(t.grad_fn))
