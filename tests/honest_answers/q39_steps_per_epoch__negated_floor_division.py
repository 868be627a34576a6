"""Ceiling division written as -(-a // b), each bound checked by one small helper (operator.lt)
before anything is counted, and epoch_of_step reusing optimizer_steps for one epoch."""

import operator


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _at_least(name: str, value: int, lowest: int) -> None:
    if operator.lt(value, lowest):
        raise ValueError(f"{name} must be >= {lowest}, got {value}")


def steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool = False) -> int:
    _at_least("num_samples", num_samples, 0)
    _at_least("batch_size", batch_size, 1)
    if drop_last:
        return num_samples // batch_size
    return _ceil_div(num_samples, batch_size)


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
    return _ceil_div(batches, accumulation_steps) * epochs


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
        raise ValueError("an epoch has no batches, so no optimizer step ever happens")
    return step // per_epoch
