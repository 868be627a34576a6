"""Wrong: starts from a copy of x, so with no steps h is a clone, not x itself."""

import torch


def apply_until_small(layer, x, threshold, max_steps):
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    h, steps = x.clone(), 0
    while steps < max_steps and torch.linalg.vector_norm(h) >= threshold:
        h = layer(h)
        steps += 1
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
