"""A backend bound to an itertools.count by functools.partial; torch.compile(dynamic=True) returned
as is; choose_mode by conditional expressions; the median by sorting; a guarded denominator."""

import functools
import itertools
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch


def _counting_backend(
    counter: "itertools.count[int]", gm: torch.fx.GraphModule, example_inputs: list[Any]
) -> Callable[..., Any]:
    next(counter)
    return gm.forward


def count_compilations(
    fn: Callable[..., object], calls: Sequence[tuple[object, ...]], *, dynamic: bool | None = None
) -> int:
    counter = itertools.count()
    torch.compiler.reset()
    compiled = torch.compile(
        fn, backend=functools.partial(_counting_backend, counter), dynamic=dynamic
    )
    for arguments in calls:
        compiled(*arguments)
    return next(counter)  # the count advanced once per graph


def compile_for_varying_batch(
    fn: Callable[..., object], *, backend: str | Callable = "inductor"
) -> Callable[..., object]:
    # Sizes symbolic from the first compile: no specialised graph to throw away at size 2 -> 3.
    return torch.compile(fn, backend=backend, dynamic=True)


def choose_mode(*, launch_bound: bool, static_shapes: bool, long_running: bool) -> str:
    if long_running:
        return "max-autotune" if static_shapes else "max-autotune-no-cudagraphs"
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
        raise ValueError(f"need at least one timed call, got repeats={repeats}")
    if synchronize is None and torch.accelerator.is_available():
        synchronize = torch.accelerator.synchronize

    def sync() -> None:
        if synchronize is not None:
            synchronize()

    for _ in range(warmup):
        fn(*args)
        sync()  # after each warm-up call: correct too
    times = []
    for _ in range(repeats):
        start = clock()
        fn(*args)
        sync()
        times.append(clock() - start)
    times.sort()
    middle = len(times) // 2
    if len(times) % 2:
        return times[middle]
    return (times[middle - 1] + times[middle]) / 2


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    h = torch.matmul(x, weight)
    norm = torch.linalg.vector_norm(h)
    too_long = norm > max_norm
    # The division only ever sees the norm where it is used; elsewhere it divides by 1 and
    # its result (and gradient) is dropped by the outer where, which passes none back.
    denominator = torch.where(too_long, norm, torch.ones_like(norm))
    factor = torch.where(too_long, max_norm / denominator, torch.ones_like(norm))
    return x + torch.relu(h * factor), norm
