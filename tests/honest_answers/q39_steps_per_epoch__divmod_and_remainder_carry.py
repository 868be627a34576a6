"""divmod with the remainder's truth added as a carry, checks written out one by one."""

import operator


def _batches(num_samples: int, batch_size: int, drop_last: bool) -> int:
    full, rest = divmod(num_samples, batch_size)
    return full if drop_last else full + int(rest > 0)


def _steps_in_epoch(batches: int, accumulation_steps: int) -> int:
    whole, partial = divmod(batches, accumulation_steps)
    return whole + (1 if partial else 0)


def steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool = False) -> int:
    if num_samples < 0:
        raise ValueError("num_samples must be non-negative")
    if batch_size < 1:
        raise ValueError("batch_size must be positive")
    return _batches(num_samples, batch_size, drop_last)


def optimizer_steps(
    num_samples: int,
    batch_size: int,
    epochs: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    if num_samples < 0:
        raise ValueError("num_samples must be non-negative")
    if batch_size < 1:
        raise ValueError("batch_size must be positive")
    if epochs < 0:
        raise ValueError("epochs must be non-negative")
    if accumulation_steps < 1:
        raise ValueError("accumulation_steps must be positive")
    per_epoch = _steps_in_epoch(_batches(num_samples, batch_size, drop_last), accumulation_steps)
    return operator.mul(per_epoch, epochs)


def epoch_of_step(
    step: int,
    num_samples: int,
    batch_size: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    if step < 0:
        raise ValueError("step must be non-negative")
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if not per_epoch:
        raise ValueError("no optimizer step happens in an epoch without batches")
    epoch, _ = divmod(step, per_epoch)
    return epoch
