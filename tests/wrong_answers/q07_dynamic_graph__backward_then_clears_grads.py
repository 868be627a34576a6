"""Wrong: counts the nodes a backward pass runs, then sets the leaves' .grad back to None:
a .grad they already held is lost."""

import torch

from solutions.q07_dynamic_graph import apply_until_small


def graph_size(t):
    if t.grad_fn is None:
        return 0
    ran, handles, leaves, stack, seen = set(), [], [], [t.grad_fn], {t.grad_fn}
    while stack:
        node = stack.pop()
        handles.append(node.register_prehook(lambda grads, node=node: ran.add(node)))
        if hasattr(node, "variable"):  # AccumulateGrad: the leaf whose .grad it writes
            leaves.append(node.variable)
        for parent, _ in node.next_functions:
            if parent is not None and parent not in seen:
                seen.add(parent)
                stack.append(parent)
    torch.autograd.backward(t, torch.ones_like(t), retain_graph=True)
    for handle in handles:
        handle.remove()
    for leaf in leaves:
        leaf.grad = None  # "undo" what backward wrote
    return len(ran)
