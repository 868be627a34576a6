"""Wrong: computes layer(h) before testing the norm of h, so the layer runs once more than
the steps taken."""

import torch


def apply_until_small(layer, x, threshold, max_steps):
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    h, steps = x, 0
    while steps < max_steps:
        following = layer(h)
        if torch.linalg.vector_norm(h) < threshold:
            break
        h, steps = following, steps + 1
    return h, steps


def graph_size(t):
    if t.grad_fn is None:
        return 0
    seen, stack = {t.grad_fn}, [t.grad_fn]
    while stack:
        for parent, _ in stack.pop().next_functions:
            if parent is not None and parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return len(seen)
