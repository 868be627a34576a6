"""Kata 7: the dynamic computation graph.

PyTorch builds the autograd graph while the forward pass runs ("define-by-run"): every
operation on a tensor that requires grad adds a node, and ordinary Python control flow
(if, while, early exit) decides which operations run. So a forward pass whose number of
steps depends on the data gets a graph of a different size each time, and backward
differentiates exactly the path that was taken. A static graph has to be declared once
with special control-flow ops instead. What a static graph buys in return is a whole
program known ahead of time, which a compiler can fuse and a server can run without
Python; PyTorch gets that back on request by capturing the graph: torch.compile (kata 38)
and torch.export (kata 48).

Each result of a recorded operation carries `grad_fn`, its node in the graph; the node's
`next_functions` is a tuple of `(node, output_index)` pairs pointing to the nodes that
produced its inputs (`None` for inputs that need no gradient). A leaf that requires grad
is reached through an `AccumulateGrad` node, the one that writes its `.grad`.

Task: a data-dependent forward pass, `apply_until_small`, and `graph_size`, which walks a
tensor's graph and counts its nodes.
"""

from collections.abc import Callable

import torch


def apply_until_small(
    layer: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    threshold: float,
    max_steps: int,
) -> tuple[torch.Tensor, int]:
    """Apply `layer` over and over until the result is small, at most `max_steps` times.

    - Start from h = x. While `torch.linalg.vector_norm(h)` (over all elements) is
      >= threshold and fewer than max_steps layers have been applied, set h = layer(h).
      So an x that is already small gets no layer at all. Once h holds NaN (a NaN norm),
      stopping there and going on to max_steps are both allowed. The norm is
      vector_norm's in x's dtype (for float16 it neither overflows nor underflows where
      squares in float16 would). A threshold between two values of that dtype may be
      compared either way: as `norm >= threshold` on the tensor does (threshold rounded to
      the dtype) or exactly (`norm.item() >= threshold`).
    - layer: any differentiable callable that keeps the shape (an nn.Module, a function).
      It runs in the mode the caller left it in: an nn.Module's train/eval mode is left
      as it is, and so is grad mode (under torch.no_grad() no graph is recorded). x: a
      floating tensor on any device.
    - Returns (h, steps): h is the last result, still attached to the autograd graph, so
      its gradients equal those of layer(layer(...layer(x))) written out `steps` times;
      steps is a Python int, 0 <= steps <= max_steps. With steps == 0, h is x.
    - Raises ValueError if max_steps < 0, whatever x is (an x that is already small too).

    >>> out, steps = apply_until_small(lambda h: h / 2, torch.tensor([8.0]), 1.5, 10)
    >>> out, steps
    (tensor([1.]), 3)
    """
    # TODO: a Python while loop whose condition looks at the data.
    raise NotImplementedError


def graph_size(t: torch.Tensor) -> int:
    """The number of distinct autograd nodes reachable from `t.grad_fn`.

    Counting, exactly:
    - start at t.grad_fn and follow `next_functions` (skip `None` entries);
    - count every distinct node object once, however many paths reach it: a value used
      twice (a diamond) or a node with several outputs (split, unbind) counts once;
    - t.grad_fn itself counts, and so does every `AccumulateGrad` node (one per leaf
      tensor that requires grad and is used);
    - 0 when t.grad_fn is None (a leaf, or a tensor built without grad).

    The graph can be thousands of nodes deep: walk it with your own stack or queue, not
    recursion. Do not run backward; t, its graph (its nodes' `metadata` included) and the
    .grad of every leaf are left as they are.

    >>> x = torch.ones(3, requires_grad=True)
    >>> graph_size((x * 2).sum())  # SumBackward0, MulBackward0, AccumulateGrad
    3
    """
    # TODO: a graph walk with a set of visited nodes.
    raise NotImplementedError
