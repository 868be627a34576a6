"""Round up by adding a bool remainder to the floor (q + (r > 0)); each argument checked by
one helper that names it and its lower bound."""


def _at_least(name: str, value: int, low: int) -> None:
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")


def _batches(num_samples: int, batch_size: int, drop_last: bool) -> int:
    full = num_samples // batch_size
    return full if drop_last else full + (num_samples % batch_size > 0)


def _steps_in_epoch(batches: int, accumulation_steps: int) -> int:
    return batches // accumulation_steps + (batches % accumulation_steps != 0)


def steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool = False) -> int:
    _at_least("num_samples", num_samples, 0)
    _at_least("batch_size", batch_size, 1)
    return int(_batches(num_samples, batch_size, drop_last))


def optimizer_steps(
    num_samples: int,
    batch_size: int,
    epochs: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    _at_least("num_samples", num_samples, 0)
    _at_least("batch_size", batch_size, 1)
    _at_least("epochs", epochs, 0)
    _at_least("accumulation_steps", accumulation_steps, 1)
    batches = _batches(num_samples, batch_size, drop_last)
    return int(_steps_in_epoch(batches, accumulation_steps) * epochs)


def epoch_of_step(
    step: int,
    num_samples: int,
    batch_size: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    _at_least("step", step, 0)
    _at_least("num_samples", num_samples, 0)
    _at_least("batch_size", batch_size, 1)
    _at_least("accumulation_steps", accumulation_steps, 1)
    per_epoch = _steps_in_epoch(_batches(num_samples, batch_size, drop_last), accumulation_steps)
    if per_epoch == 0:
        raise ValueError("an epoch with no batches has no optimizer step")
    return int(step // per_epoch)
