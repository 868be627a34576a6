"""Wrong: optimizer_steps divides by batch_size before checking it (ZeroDivisionError)."""

from solutions.q39_steps_per_epoch import _ceil_div, steps_per_epoch  # the rest as in the reference


def optimizer_steps(
    num_samples: int,
    batch_size: int,
    epochs: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    if epochs < 0 or accumulation_steps < 1 or num_samples < 0:
        raise ValueError("need epochs >= 0, accumulation_steps >= 1 and num_samples >= 0")
    batches = num_samples // batch_size if drop_last else _ceil_div(num_samples, batch_size)
    # Every full group of batches steps, and so does a leftover group at the epoch's end.
    return epochs * _ceil_div(batches, accumulation_steps)


def epoch_of_step(
    step: int,
    num_samples: int,
    batch_size: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if per_epoch == 0:
        raise ValueError("an epoch has no batches, so no optimizer step ever happens")
    return step // per_epoch
