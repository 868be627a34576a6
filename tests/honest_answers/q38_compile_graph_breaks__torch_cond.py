"""The clip as torch.cond with two branch functions; a dict of modes, statistics.median."""

import statistics
import time
from collections.abc import Callable, Sequence

import torch


def count_compilations(
    fn: Callable[..., object], calls: Sequence[tuple[object, ...]], *, dynamic: bool | None = None
) -> int:
    graphs: list[int] = []

    def backend(gm: torch.fx.GraphModule, example_inputs: object) -> Callable:
        graphs.append(len(gm.graph.nodes))
        return gm.forward

    torch.compiler.reset()
    compiled = torch.compile(fn, backend=backend, dynamic=dynamic)
    for args in calls:
        compiled(*args)
    return len(graphs)


def compile_for_varying_batch(
    fn: Callable[..., object], *, backend: str | Callable = "inductor"
) -> Callable[..., object]:
    return torch.compile(fn, backend=backend, dynamic=True)


_MODES = {
    # (long_running, static_shapes, launch_bound) -> mode; launch_bound only matters
    # for a short job with static shapes
    (True, True): "max-autotune",
    (True, False): "max-autotune-no-cudagraphs",
}


def choose_mode(*, launch_bound: bool, static_shapes: bool, long_running: bool) -> str:
    mode = _MODES.get((long_running, static_shapes))
    if mode is not None:
        return mode
    return "reduce-overhead" if launch_bound and static_shapes else "default"


def median_time(
    fn: Callable[..., object],
    *args: object,
    warmup: int = 3,
    repeats: int = 10,
    synchronize: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    sync = synchronize
    if sync is None and torch.accelerator.is_available():
        sync = torch.accelerator.synchronize

    def settle() -> None:
        if sync is not None:
            sync()

    for _ in range(warmup):
        fn(*args)
        settle()
    times = []
    for _ in range(repeats):
        before = clock()
        fn(*args)
        settle()
        times.append(clock() - before)
    return statistics.median(times)


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    h = x @ weight
    norm = torch.linalg.vector_norm(h)

    # torch.cond's operands must be tensors: the branches close over max_norm
    def scaled(h: torch.Tensor, norm: torch.Tensor) -> torch.Tensor:
        return h * (max_norm / norm)

    def kept(h: torch.Tensor, norm: torch.Tensor) -> torch.Tensor:
        return h.clone()

    h = torch.cond(norm > max_norm, scaled, kept, (h, norm))
    return x + torch.relu(h), norm
