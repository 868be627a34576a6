"""Wrong: walks the graph by recursion, raising the recursion limit so deep graphs fit."""

import sys

from solutions.q07_dynamic_graph import apply_until_small


def visit(node, seen):
    for parent, _ in node.next_functions:
        if parent is not None and parent not in seen:
            seen.add(parent)
            visit(parent, seen)


def graph_size(t):
    if t.grad_fn is None:
        return 0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))
    try:
        seen = {t.grad_fn}
        visit(t.grad_fn, seen)
    finally:
        sys.setrecursionlimit(limit)
    return len(seen)
