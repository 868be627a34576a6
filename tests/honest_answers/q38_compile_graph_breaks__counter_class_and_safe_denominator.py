"""A counting backend class, nested conditionals for the mode, a median by sorting, and the
clip written as a boolean tensor and a safe denominator."""

import time
from collections.abc import Callable, Sequence

import torch


class _GraphCounter:
    """A torch.compile backend that runs each graph as captured and counts them."""

    def __init__(self) -> None:
        self.graphs = 0

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: object) -> Callable:
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
    # sizes are symbols from the first call: no second compile at the first new size
    return torch.compile(fn, backend=backend, dynamic=True)


def choose_mode(*, launch_bound: bool, static_shapes: bool, long_running: bool) -> str:
    if long_running:
        if static_shapes:
            return "max-autotune"
        return "max-autotune-no-cudagraphs"
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
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    if synchronize is None:
        synchronize = (
            torch.accelerator.synchronize if torch.accelerator.is_available() else lambda: None
        )

    for _ in range(warmup):
        fn(*args)
    synchronize()

    samples: list[float] = []
    for _ in range(repeats):
        start = clock()
        fn(*args)
        synchronize()
        samples.append(clock() - start)

    samples.sort()
    middle = len(samples) // 2
    if len(samples) % 2:
        return samples[middle]
    return (samples[middle - 1] + samples[middle]) / 2


def clipped_residual(
    x: torch.Tensor, weight: torch.Tensor, max_norm: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    h = x @ weight
    norm = torch.linalg.vector_norm(h)
    clip = norm > max_norm  # eager's comparison: max_norm is rounded to norm's dtype
    one = torch.ones_like(norm)
    # where h is kept, divide by 1: no overflow of max_norm / tiny norm in the backward pass
    denominator = torch.where(clip, norm, one)
    factor = torch.where(clip, max_norm / denominator, one)
    return x + torch.relu(h * factor), norm
