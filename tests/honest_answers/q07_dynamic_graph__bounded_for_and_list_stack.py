"""A bounded for loop with break instead of a while, and a depth-first walk over a plain list
used as a stack, with node identities kept in a set."""

import itertools
import logging

import torch

log = logging.getLogger(__name__)


def apply_until_small(layer, x: torch.Tensor, threshold: float, max_steps: int):
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    h, steps = x, 0
    for steps in itertools.count():
        if steps == max_steps or not bool(torch.linalg.vector_norm(h) >= threshold):
            break
        h = layer(h)
    log.debug("applied the layer %d times", steps)
    return h, steps


def graph_size(t: torch.Tensor) -> int:
    root = t.grad_fn
    if root is None:
        return 0
    seen = {root}
    stack = [root]
    while stack:
        node = stack.pop()
        for child, _index in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return len(seen)
