"""Graphs counted into a closure's list; an explicitly lazy wrapper class; match on the three
flags; a generator of timings; a clamped numerator over a where-guarded denominator."""

import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch


def count_compilations(
    fn: Callable[..., object], calls: Sequence[tuple[object, ...]], *, dynamic: bool | None = None
) -> int:
    graphs: list[torch.fx.GraphModule] = []

    def counting_backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable:
        graphs.append(gm)
        return gm.forward  # run the captured graph as it is

    torch.compiler.reset()  # graphs from earlier calls are kept on fn's code
    compiled = torch.compile(fn, backend=counting_backend, dynamic=dynamic)
    for args in calls:
        compiled(*args)
    return len(graphs)


class _CompiledOnFirstCall:
    """fn compiled with every size symbolic (dynamic=True), at its first call."""

    def __init__(self, fn: Callable[..., object], backend: str | Callable) -> None:
        self._fn, self._backend = fn, backend
        self._compiled: Callable[..., object] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> object:
        if self._compiled is None:
            self._compiled = torch.compile(self._fn, backend=self._backend, dynamic=True)
        return self._compiled(*args, **kwargs)


def compile_for_varying_batch(
    fn: Callable[..., object], *, backend: str | Callable = "inductor"
) -> Callable[..., object]:
    return _CompiledOnFirstCall(fn, backend)


def choose_mode(*, launch_bound: bool, static_shapes: bool, long_running: bool) -> str:
    match (long_running, static_shapes, launch_bound):
        case (True, True, _):
            return "max-autotune"  # autotuning and CUDA graphs
        case (True, False, _):
            return "max-autotune-no-cudagraphs"  # CUDA graphs need static shapes
        case (False, True, True):
            return "reduce-overhead"
        case _:
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
        synchronize = (
            torch.accelerator.synchronize if torch.accelerator.is_available() else lambda: None
        )
    sync = synchronize

    def timings() -> Iterator[float]:
        for _ in range(repeats):
            start = clock()
            fn(*args)
            sync()  # the queued work is part of the time
            yield clock() - start

    for _ in range(warmup):
        fn(*args)
    if warmup:
        sync()  # no clock reading before the warm-up's work is done
    return statistics.median(timings())


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    h = x @ weight
    norm = torch.linalg.vector_norm(h)
    scaled = norm > max_norm  # eager's comparison, max_norm rounded to norm's dtype
    # Where scaled: max_norm / norm, as eager. Elsewhere a scale of 1 that no gradient
    # reaches through: the division sees 1 as denominator, so nothing overflows there.
    # (clamp's bound must fit the dtype: a larger max_norm rounds to inf and never scales)
    numerator = norm.clamp(max=min(max_norm, torch.finfo(norm.dtype).max))
    scale = torch.where(scaled, numerator / torch.where(scaled, norm, 1), 1)
    return x + torch.relu(h * scale), norm
