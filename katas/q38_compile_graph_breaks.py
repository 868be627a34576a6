"""Kata 38: torch.compile and graph breaks.

`torch.compile(fn)` lets TorchDynamo read fn's Python bytecode and capture the tensor
operations as a graph, which a backend (inductor by default) turns into fused kernels.
Whatever Dynamo cannot put in a graph causes a *graph break*: the graph so far is
compiled, the offending code runs in ordinary Python, and a new graph starts after it.
Every break costs speed (fewer fusions, a trip back to Python each call), and
`torch.compile(fn, fullgraph=True)` refuses them outright. Typical causes:

- `.item()` / `.tolist()`: a tensor's value is pulled out into a Python number;
- `print(...)` and other Python side effects (how each is handled depends on the torch
  version: recent ones may replay some side effects after the graph instead of breaking);
- a Python `if` on a tensor's value (`if norm > 1:`), which needs the value at trace time.

`torch._dynamo.explain(fn)(*args)` reports the graphs and the breaks with their reasons.

Task: this function (eager PyTorch, correct, but with graph breaks) clips the activation
of a residual layer and prints its norm:

    def clipped_residual_eager(x, weight, max_norm=1.0):
        h = x @ weight
        norm = h.norm()
        print(f"activation norm {norm.item():.3f}")   # .item() and print: graph breaks
        if norm > max_norm:                            # Python `if` on a tensor: a break
            h = h * (max_norm / norm)
        return x + torch.relu(h)

First write `count_graph_breaks` to measure such breaks, then rewrite the function as
`clipped_residual` so that it compiles into one graph with no breaks.
"""

from collections.abc import Callable

import torch


def count_graph_breaks(fn: Callable[..., object], *args: object) -> int:
    """How many graph breaks TorchDynamo meets when it compiles `fn(*args)`.

    - Returns the graph-break count that `torch._dynamo.explain` reports for that call
      (0 for a function that compiles into a single graph), counting whatever Dynamo
      counts in the installed torch version; and 0, not explain's -1, for a function
      with no tensor operation at all, which makes no graph to break.
    - `fn` runs once (its side effects, such as printing, happen); no compiled state is
      left behind for later calls.

    >>> def branchy(x):
    ...     if x.sum() > 0:
    ...         return x * 2
    ...     return x
    >>> count_graph_breaks(branchy, torch.ones(3))
    1
    """
    # TODO: ask torch._dynamo.explain about fn(*args) and return its graph-break count.
    raise NotImplementedError


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """`clipped_residual_eager` (see the module docstring) rewritten without graph breaks.

    - x: (B, D) floating tensor; weight: (D, D), same dtype and device; max_norm > 0.
    - Let h = x @ weight and norm = h.norm() (over all of h). If norm > max_norm, h is
      scaled by max_norm / norm; otherwise (norm == max_norm included) h is left as it is.
    - Returns (out, norm): out = x + relu(h), shape (B, D), with x's dtype and device; and
      norm, the 0-dim norm of h before any scaling, returned instead of printed so the
      caller can log it outside the compiled code.
    - Values and gradients (for x and weight) equal those of the eager version wherever
      h is not zero: when h is scaled, gradients flow through norm as they do there; when
      it is not (also at norm == max_norm exactly), no gradient flows through norm. That
      holds for a tiny non-zero h too (a norm of 1e-4 in float16), where max_norm / norm
      and its gradient overflow: keep them out of the backward pass wherever h is not scaled.

    Rules: no `.item()` or `.tolist()`, no `print`, no Python `if` or loop on a tensor's
    value; `torch._dynamo.explain` must report one graph and no breaks. Do not decorate the
    function with torch.compile: the caller compiles it.

    >>> x, weight = torch.ones(2, 3), torch.eye(3)
    >>> out, norm = clipped_residual(x, weight, max_norm=1.0)
    >>> round(norm.item(), 4), out[0]  # h was scaled down to norm 1
    (2.4495, tensor([1.4082, 1.4082, 1.4082]))
    """
    # TODO: compute the scale with tensor operations (no Python branch) and return the norm.
    raise NotImplementedError
