"""Wrong: pushes a node again for every path that reaches it, so diamonds take exponential time."""

from solutions.q07_dynamic_graph import apply_until_small


def graph_size(t):
    if t.grad_fn is None:
        return 0
    seen = {t.grad_fn}
    stack = [t.grad_fn]
    while stack:
        node = stack.pop()
        for parent, _ in node.next_functions:
            if parent is not None:
                seen.add(parent)
                stack.append(parent)
    return len(seen)
