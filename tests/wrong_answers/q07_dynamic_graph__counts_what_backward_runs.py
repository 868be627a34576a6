"""Wrong: counts the nodes that a backward pass runs, which writes the leaves' .grad."""

import torch

from solutions.q07_dynamic_graph import apply_until_small  # the rest as in the reference


def graph_size(t):
    if t.grad_fn is None:
        return 0
    ran, handles, stack, seen = set(), [], [t.grad_fn], {t.grad_fn}
    while stack:
        node = stack.pop()
        handles.append(node.register_prehook(lambda grads, node=node: ran.add(node)))
        for parent, _ in node.next_functions:
            if parent is not None and parent not in seen:
                seen.add(parent)
                stack.append(parent)
    torch.autograd.backward(t, torch.ones_like(t), retain_graph=True)
    for handle in handles:
        handle.remove()
    return len(ran)
