"""Kata 38, written another way: a counter object, a mode table, a manual median, torch.cond."""

import time
from collections.abc import Callable, Sequence

import torch


class _Counter:
    def __init__(self) -> None:
        self.seen: list[torch.fx.GraphModule] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        self.seen.append(gm)
        return gm


def count_compilations(
    fn: Callable[..., object], calls: Sequence[tuple[object, ...]], *, dynamic: bool | None = None
) -> int:
    torch.compiler.reset()
    counter = _Counter()
    compiled = torch.compile(backend=counter, dynamic=dynamic)(fn)
    for args in calls:
        compiled(*args)
    return len(counter.seen)


def compile_for_varying_batch(
    fn: Callable[..., object], *, backend: str | Callable = "inductor"
) -> Callable[..., object]:
    return torch.compile(backend=backend, dynamic=True)(fn)


_MODES = {
    # (long_running, static_shapes, launch_bound) -> mode
    (True, True, True): "max-autotune",
    (True, True, False): "max-autotune",
    (True, False, True): "max-autotune-no-cudagraphs",
    (True, False, False): "max-autotune-no-cudagraphs",
    (False, True, True): "reduce-overhead",
}


def choose_mode(*, launch_bound: bool, static_shapes: bool, long_running: bool) -> str:
    return _MODES.get((bool(long_running), bool(static_shapes), bool(launch_bound)), "default")


def median_time(
    fn: Callable[..., object],
    *args: object,
    warmup: int = 3,
    repeats: int = 10,
    synchronize: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    if not repeats >= 1:
        raise ValueError(f"repeats should be at least 1, got {repeats}")
    if synchronize is None:
        synchronize = (
            torch.accelerator.synchronize if torch.accelerator.is_available() else (lambda: None)
        )

    def call() -> None:
        fn(*args)
        synchronize()

    for _ in range(warmup):
        call()
    times = []
    for _ in range(repeats):
        before = clock()
        call()
        times.append(clock() - before)
    times.sort()
    middle = len(times) // 2
    if len(times) % 2:
        return times[middle]
    return (times[middle - 1] + times[middle]) / 2


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    h = x @ weight
    norm = torch.linalg.vector_norm(h)
    h = torch.cond(
        norm > max_norm,
        lambda h, norm: h * (max_norm / norm),
        lambda h, norm: h.clone(),
        (h, norm),
    )
    return x + torch.relu(h), norm
