"""Wrong: graph_size walks every path without a visited set, so shared nodes count twice."""

from solutions.q07_dynamic_graph import apply_until_small  # the rest as in the reference


def graph_size(t):
    if t.grad_fn is None:
        return 0
    count, stack = 0, [t.grad_fn]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(parent for parent, _ in node.next_functions if parent is not None)
    return count
