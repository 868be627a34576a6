"""Wrong: graph_size leaves out the AccumulateGrad nodes of the leaves."""

from solutions.q07_dynamic_graph import apply_until_small  # the rest as in the reference


def graph_size(t):
    if t.grad_fn is None:
        return 0
    seen, stack = {t.grad_fn}, [t.grad_fn]
    while stack:
        node = stack.pop()
        for parent, _ in node.next_functions:
            if parent is not None and parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return sum(type(node).__name__ != "AccumulateGrad" for node in seen)
