"""Correct: a backend class that keeps the graphs, a lookup table of modes, one clock reading
shared by consecutive timed calls with a median by hand, and the scale selected, then applied
to h."""

import itertools
import time
from collections.abc import Callable, Sequence

import torch
from torch.nn import functional as F


class _GraphCollector:
    def __init__(self) -> None:
        self.graphs: list[torch.fx.GraphModule] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        self.graphs.append(gm)
        return gm


def count_compilations(
    fn: Callable[..., object], calls: Sequence[tuple[object, ...]], *, dynamic: bool | None = None
) -> int:
    torch.compiler.reset()
    collector = _GraphCollector()
    compiled = torch.compile(fn, backend=collector, dynamic=dynamic)
    for args in calls:
        compiled(*args)
    return len(collector.graphs)


def compile_for_varying_batch(
    fn: Callable[..., object], *, backend: str | Callable = "inductor"
) -> Callable[..., object]:
    return torch.compile(fn, dynamic=True, backend=backend, fullgraph=False)


_MODES = {
    # (long_running, static_shapes) -> mode, for a job that autotunes
    (True, True): "max-autotune",
    (True, False): "max-autotune-no-cudagraphs",
}


def choose_mode(*, launch_bound: bool, static_shapes: bool, long_running: bool) -> str:
    mode = _MODES.get((long_running, static_shapes))
    if mode is not None:
        return mode
    return "reduce-overhead" if (launch_bound, static_shapes) == (True, True) else "default"


def median_time(
    fn: Callable[..., object],
    *args: object,
    warmup: int = 3,
    repeats: int = 10,
    synchronize: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    if repeats < 1:
        raise ValueError("at least one timed call")

    def wait() -> None:
        if synchronize is not None:
            synchronize()
        elif torch.accelerator.is_available():
            torch.accelerator.synchronize()

    for _ in range(warmup):
        fn(*args)
    wait()
    readings = [clock()]
    for _ in range(repeats):
        fn(*args)
        wait()
        readings.append(clock())
    times = sorted(b - a for a, b in itertools.pairwise(readings))
    middle = len(times) // 2
    if len(times) % 2:
        return times[middle]
    return (times[middle - 1] + times[middle]) / 2


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    h = torch.matmul(x, weight)
    norm = torch.linalg.vector_norm(h, ord=2)
    over = norm > max_norm
    safe_norm = torch.where(over, norm, torch.ones_like(norm))
    h = h * torch.where(over, max_norm / safe_norm, torch.ones_like(norm))
    return torch.add(x, F.relu(h)), norm
