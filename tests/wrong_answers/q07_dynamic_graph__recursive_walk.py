"""Wrong: graph_size recurses into next_functions, which overflows the stack on deep graphs."""

from solutions.q07_dynamic_graph import apply_until_small  # the rest as in the reference


def graph_size(t):
    seen = set()

    def visit(node):
        if node is None or node in seen:
            return
        seen.add(node)
        for parent, _ in node.next_functions:
            visit(parent)

    visit(t.grad_fn)
    return len(seen)
