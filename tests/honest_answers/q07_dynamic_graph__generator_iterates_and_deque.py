"""A generator of iterates driven by enumerate, exact float comparison through .item();
a breadth-first walk with a deque and an insertion-ordered dict of seen nodes."""

from collections import deque
from collections.abc import Callable, Iterator

import torch


def _iterates(
    layer: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor
) -> Iterator[torch.Tensor]:
    # Lazily: layer runs only when the caller asks for the next iterate.
    h = x
    while True:
        yield h
        h = layer(h)


def apply_until_small(
    layer: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    threshold: float,
    max_steps: int,
) -> tuple[torch.Tensor, int]:
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    for steps, h in enumerate(_iterates(layer, x)):
        if steps >= max_steps:
            return h, steps
        norm = torch.linalg.vector_norm(h.detach()).item()
        if not norm >= threshold:  # NaN stops too
            return h, steps
    raise AssertionError("unreachable")


def graph_size(t: torch.Tensor) -> int:
    root = t.grad_fn
    if root is None:
        return 0
    seen: dict[object, None] = {root: None}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen[child] = None
                queue.append(child)
    return len(seen)
