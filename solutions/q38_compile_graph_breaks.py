"""Kata 38: torch.compile and graph breaks (reference answer)."""

from collections.abc import Callable

import torch


def count_graph_breaks(fn: Callable[..., object], *args: object) -> int:
    # explain compiles fn with a recording backend, runs it once and resets Dynamo's
    # caches before and after, so the caller's later compilations start clean.
    # With no graph at all (no tensor operation) it reports -1: there is nothing to break.
    return max(torch._dynamo.explain(fn)(*args).graph_break_count, 0)


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    h = x @ weight
    norm = h.norm()
    # The branch becomes a select in the graph: the same condition as the eager `if`, so
    # at norm == max_norm the scale is exactly 1 and no gradient flows through norm (a
    # clamp would pass one there). The select is on the divisor, not on the quotient: a
    # branch torch.where does not take still backpropagates, and max_norm / norm's
    # gradient overflows for a small norm (0 * inf = nan); max_norm / max_norm has none.
    scale = max_norm / torch.where(norm > max_norm, norm, max_norm)
    # norm goes back to the caller as a tensor: logging it there keeps print and .item()
    # (both graph breaks) out of the compiled function.
    return x + torch.relu(h * scale), norm
