"""Correct: rounding up as (a + b - 1) // b, each function checking its own arguments."""


def steps_per_epoch(num_samples, batch_size, drop_last=False):
    if num_samples < 0:
        raise ValueError("num_samples must be >= 0")
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    extra = 0 if drop_last else batch_size - 1
    return (num_samples + extra) // batch_size


def optimizer_steps(num_samples, batch_size, epochs, accumulation_steps=1, drop_last=False):
    if epochs < 0:
        raise ValueError("epochs must be >= 0")
    if accumulation_steps < 1:
        raise ValueError("accumulation_steps must be >= 1")
    batches = steps_per_epoch(num_samples, batch_size, drop_last)
    return epochs * ((batches + accumulation_steps - 1) // accumulation_steps)


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=False):
    if step < 0:
        raise ValueError("step must be >= 0")
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if not per_epoch:
        raise ValueError("no optimizer step in an epoch")
    return step // per_epoch
