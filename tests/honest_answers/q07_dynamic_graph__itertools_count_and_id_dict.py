"""apply_until_small counts with itertools.count and compares a detached norm's
.ge(); graph_size walks depth first with a dict keyed by id() holding each node."""

import itertools
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
    for steps in itertools.count():
        if steps == max_steps:
            return h, steps
        # The norm only decides the control flow: no need to record it.
        big = torch.linalg.vector_norm(h.detach()).ge(threshold).item()
        if not big:  # a NaN norm compares False: stop there
            return h, steps
        h = layer(h)
    raise AssertionError("unreachable")


def graph_size(t: torch.Tensor) -> int:
    root = t.grad_fn
    if root is None:
        return 0
    seen: dict[int, object] = {id(root): root}  # the values keep each node alive
    stack = [root]
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is not None and id(child) not in seen:
                seen[id(child)] = child
                stack.append(child)
    return len(seen)
