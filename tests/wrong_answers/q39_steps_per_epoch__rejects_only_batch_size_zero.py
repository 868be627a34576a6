"""Wrong: rejects batch_size == 0 only, so a negative batch size gives a negative count."""

from solutions.q39_steps_per_epoch import _ceil_div


def _check(num_samples, batch_size, accumulation_steps=1):
    if num_samples < 0 or batch_size == 0 or accumulation_steps < 1:
        raise ValueError(f"bad arguments {num_samples}, {batch_size}, {accumulation_steps}")


def steps_per_epoch(num_samples, batch_size, drop_last=False):
    _check(num_samples, batch_size)
    if drop_last:
        return num_samples // batch_size
    return _ceil_div(num_samples, batch_size)


def optimizer_steps(num_samples, batch_size, epochs, accumulation_steps=1, drop_last=False):
    _check(num_samples, batch_size, accumulation_steps)
    if epochs < 0:
        raise ValueError(f"epochs must be >= 0, got {epochs}")
    return epochs * _ceil_div(
        steps_per_epoch(num_samples, batch_size, drop_last), accumulation_steps
    )


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=False):
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if per_epoch == 0:
        raise ValueError("an epoch has no batches, so no optimizer step ever happens")
    return step // per_epoch
