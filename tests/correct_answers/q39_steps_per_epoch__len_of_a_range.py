"""Correct: counts the batches as the length of a range of batch starts (exact integer
arithmetic in C, no loop and no DataLoader), and checks every argument first."""


def _check(num_samples, batch_size, epochs=0, accumulation_steps=1):
    if min(num_samples, epochs) < 0 or min(batch_size, accumulation_steps) < 1:
        raise ValueError("num_samples, epochs >= 0 and batch_size, accumulation_steps >= 1")


def steps_per_epoch(num_samples, batch_size, drop_last=False):
    _check(num_samples, batch_size)
    last = num_samples - batch_size + 1 if drop_last else num_samples
    return len(range(0, max(last, 0), batch_size))


def optimizer_steps(num_samples, batch_size, epochs, accumulation_steps=1, drop_last=False):
    _check(num_samples, batch_size, epochs, accumulation_steps)
    batches = steps_per_epoch(num_samples, batch_size, drop_last)
    return epochs * len(range(0, batches, accumulation_steps))


def epoch_of_step(step, num_samples, batch_size, accumulation_steps=1, drop_last=False):
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if step < 0 or per_epoch == 0:
        raise ValueError("step must be >= 0, and an epoch must have an optimizer step")
    return step // per_epoch
