"""Correct: compile_for_varying_batch makes sizes dynamic by patching
torch.compiler.config.assume_static_by_default around each call, putting it back after."""

import statistics
import time
from collections.abc import Callable, Sequence

import torch


def count_compilations(
    fn: Callable[..., object], calls: Sequence[tuple[object, ...]], *, dynamic: bool | None = None
) -> int:
    graphs = 0

    # A backend is any callable (graph module, example inputs) -> a callable that runs the
    # graph; Dynamo hands it every graph it captures, once per compilation.
    def counting_backend(gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        nonlocal graphs
        graphs += 1
        return gm.forward

    # Dynamo caches compiled code (and the shapes it has seen) on fn's code object, not on
    # the torch.compile wrapper: without a reset, earlier calls' graphs would be reused.
    torch.compiler.reset()
    compiled = torch.compile(fn, backend=counting_backend, dynamic=dynamic)
    for args in calls:
        compiled(*args)
    return graphs


def compile_for_varying_batch(
    fn: Callable[..., object], *, backend: str | Callable = "inductor"
) -> Callable[..., object]:
    # dynamic=True traces sizes as symbols from the first call: one graph for every batch
    # size (from 2; 0 and 1 are specialised). The default (None) compiles a static graph
    # first and a dynamic one at the first new size; False compiles one per size.
    compiled = torch.compile(fn, backend=backend)

    def run(*args, **kwargs):
        with torch.compiler.config.patch(assume_static_by_default=False):
            return compiled(*args, **kwargs)

    return run


def choose_mode(*, launch_bound: bool, static_shapes: bool, long_running: bool) -> str:
    # CUDA graphs (reduce-overhead, max-autotune) replay recorded kernel launches: they need
    # the same shapes every call. Autotuning costs minutes of compile time: worth it only
    # when the job runs long enough to earn it back.
    if long_running:
        return "max-autotune" if static_shapes else "max-autotune-no-cudagraphs"
    if launch_bound and static_shapes:
        return "reduce-overhead"
    return "default"


def median_time(
    fn: Callable[..., object],
    *args: object,
    warmup: int = 3,
    repeats: int = 10,
    synchronize: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    if synchronize is None:
        # Kernels on an accelerator run after the call that queues them returns; on the
        # CPU they have finished by then, so there is nothing to wait for.
        available = torch.accelerator.is_available()
        synchronize = torch.accelerator.synchronize if available else lambda: None
    # Warm-up: the first call of a compiled function compiles; later ones fill caches.
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(repeats):
        synchronize()  # the warm-up's (or the last call's) queued work is not this call's
        start = clock()
        fn(*args)
        synchronize()  # wait for this call's kernels before reading the clock
        times.append(clock() - start)
    # The median: one slow call (a page fault, another process) does not move it.
    return statistics.median(times)


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    h = x @ weight
    norm = torch.linalg.vector_norm(h)
    # The branch becomes a select in the graph: the same condition as the eager `if`, so
    # at norm == max_norm the scale is exactly 1 and no gradient flows through norm (a
    # clamp would pass one there). A branch torch.where does not take still
    # backpropagates, and max_norm / norm's gradient overflows for a small norm
    # (0 * inf = nan): the divisor is 1 where h is not scaled. max_norm stays a Python
    # number, never a tensor of h's dtype: inf, or more than the dtype holds, never clips.
    clipped = norm > max_norm
    scale = torch.where(clipped, max_norm / torch.where(clipped, norm, 1.0), 1.0)
    # norm goes back to the caller as a tensor: logging it there keeps print and .item()
    # (both graph breaks) out of the compiled function.
    return x + torch.relu(h * scale), norm
