"""One bound-checking helper called per argument, and ceilings by (a + b - 1) // b."""

from __future__ import annotations


def _at_least(name: str, value: int, lowest: int) -> int:
    if value < lowest:
        raise ValueError(f"{name} must be >= {lowest}, got {value}")
    return value


def _ceil_div(a: int, b: int) -> int:
    return (a + b - 1) // b


def steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool = False) -> int:
    n = _at_least("num_samples", num_samples, 0)
    b = _at_least("batch_size", batch_size, 1)
    return n // b if drop_last else _ceil_div(n, b)


def optimizer_steps(
    num_samples: int,
    batch_size: int,
    epochs: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    _at_least("epochs", epochs, 0)
    _at_least("accumulation_steps", accumulation_steps, 1)
    batches = steps_per_epoch(num_samples, batch_size, drop_last)
    return epochs * _ceil_div(batches, accumulation_steps)


def epoch_of_step(
    step: int,
    num_samples: int,
    batch_size: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    _at_least("step", step, 0)
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if per_epoch == 0:
        raise ValueError("an epoch without batches has no optimizer step")
    return step // per_epoch
