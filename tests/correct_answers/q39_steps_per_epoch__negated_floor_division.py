"""Correct: ceiling division written as -(-a // b), every argument checked by one helper
with neutral defaults for the counts a function does not take."""


def _check(num_samples, batch_size, epochs=0, accumulation_steps=1, step=0):
    if num_samples < 0:
        raise ValueError(f"num_samples must be at least 0, got {num_samples}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if epochs < 0:
        raise ValueError(f"epochs must be at least 0, got {epochs}")
    if accumulation_steps < 1:
        raise ValueError(f"accumulation_steps must be at least 1, got {accumulation_steps}")
    if step < 0:
        raise ValueError(f"step must be at least 0, got {step}")


def _ceil_div(a, b):
    return -(-a // b)


def steps_per_epoch(num_samples, batch_size, drop_last=False):
    _check(num_samples, batch_size)
    if drop_last:
        return num_samples // batch_size
    return _ceil_div(num_samples, batch_size)


def _steps_in_one_epoch(num_samples, batch_size, accumulation_steps, drop_last):
    return _ceil_div(steps_per_epoch(num_samples, batch_size, drop_last), accumulation_steps)


def optimizer_steps(num_samples, batch_size, epochs, accumulation_steps=1, drop_last=False):
    _check(num_samples, batch_size, epochs=epochs, accumulation_steps=accumulation_steps)
    return epochs * _steps_in_one_epoch(num_samples, batch_size, accumulation_steps, drop_last)


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=False):
    _check(num_samples, batch_size, accumulation_steps=accumulation_steps, step=step)
    per_epoch = _steps_in_one_epoch(num_samples, batch_size, accumulation_steps, drop_last)
    if per_epoch == 0:
        raise ValueError("an epoch without batches has no optimizer step")
    return step // per_epoch
