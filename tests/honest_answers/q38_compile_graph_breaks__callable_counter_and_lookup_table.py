"""A counting backend as a dataclass with __call__, the modes from a lookup table keyed by the
three answers, timing through a nested helper and statistics.median, and clipping with a guarded
denominator selected by torch.where."""

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch


@dataclass
class _GraphCounter:
    graphs: int = 0

    def __call__(
        self, gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]
    ) -> Callable[..., object]:
        self.graphs += 1
        return gm.forward


def count_compilations(
    fn: Callable[..., object], calls: Sequence[tuple[object, ...]], *, dynamic: bool | None = None
) -> int:
    torch.compiler.reset()
    counter = _GraphCounter()
    compiled = torch.compile(fn, backend=counter, dynamic=dynamic)
    for args in calls:
        compiled(*args)
    return counter.graphs


def compile_for_varying_batch(
    fn: Callable[..., object], *, backend: str | Callable = "inductor"
) -> Callable[..., object]:
    # dynamic=True traces sizes as symbols from the first call, so no size recompiles.
    return torch.compile(fn, backend=backend, dynamic=True)


# (long_running, static_shapes, launch_bound) -> mode
_MODES = {
    (True, True, True): "max-autotune",
    (True, True, False): "max-autotune",
    (True, False, True): "max-autotune-no-cudagraphs",
    (True, False, False): "max-autotune-no-cudagraphs",
    (False, True, True): "reduce-overhead",
    (False, True, False): "default",
    (False, False, True): "default",
    (False, False, False): "default",
}


def choose_mode(*, launch_bound: bool, static_shapes: bool, long_running: bool) -> str:
    return _MODES[bool(long_running), bool(static_shapes), bool(launch_bound)]


def _no_wait() -> None:
    return None


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
            torch.accelerator.synchronize if torch.accelerator.is_available() else _no_wait
        )
    wait = synchronize

    def run() -> None:
        fn(*args)
        wait()

    for _ in range(warmup):
        run()

    def timed() -> float:
        start = clock()
        run()
        return clock() - start

    return statistics.median(timed() for _ in range(repeats))


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    h = x @ weight
    norm = torch.linalg.vector_norm(h)
    clip = norm > max_norm
    # Where h is not scaled the denominator is 1, so max_norm / norm (which may overflow for a
    # tiny norm) never reaches the backward pass there.
    one = torch.ones_like(norm)
    denominator = torch.where(clip, norm, one)
    scale = torch.where(clip, max_norm / denominator, one)
    return x + torch.relu(h * scale), norm
