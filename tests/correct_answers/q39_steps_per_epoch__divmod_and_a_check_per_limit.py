"""Correct: counts from divmod's quotient and remainder, each limit checked by a helper."""


def _at_least(value: int, low: int, name: str) -> None:
    if value < low:
        raise ValueError(f"{name} must be at least {low}, got {value}")


def steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool = False) -> int:
    _at_least(num_samples, 0, "num_samples")
    _at_least(batch_size, 1, "batch_size")
    whole, rest = divmod(num_samples, batch_size)
    return whole if drop_last or rest == 0 else whole + 1


def _per_epoch(num_samples, batch_size, accumulation_steps, drop_last):
    _at_least(accumulation_steps, 1, "accumulation_steps")
    batches = steps_per_epoch(num_samples, batch_size, drop_last)
    groups, leftover = divmod(batches, accumulation_steps)
    return groups + (1 if leftover else 0)


def optimizer_steps(num_samples, batch_size, epochs, accumulation_steps=1, drop_last=False):
    _at_least(epochs, 0, "epochs")
    return epochs * _per_epoch(num_samples, batch_size, accumulation_steps, drop_last)


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=False):
    _at_least(step, 0, "step")
    per_epoch = _per_epoch(num_samples, batch_size, accumulation_steps, drop_last)
    if per_epoch == 0:
        raise ValueError("an epoch without batches has no optimizer step")
    return step // per_epoch
