"""divmod everywhere, a NamedTuple for the validated arguments, operator.floordiv."""

import operator
from typing import NamedTuple


class _Sizes(NamedTuple):
    samples: int
    batch: int
    accumulation: int = 1

    def checked(self) -> "_Sizes":
        if self.samples < 0 or self.batch < 1 or self.accumulation < 1:
            raise ValueError(f"invalid sizes: {self}")
        return self


def _batches(sizes: _Sizes, drop_last: bool) -> int:
    full, rest = divmod(sizes.samples, sizes.batch)
    return full if drop_last or not rest else full + 1


def steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool = False) -> int:
    return _batches(_Sizes(num_samples, batch_size).checked(), drop_last)


def optimizer_steps(
    num_samples: int,
    batch_size: int,
    epochs: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    sizes = _Sizes(num_samples, batch_size, accumulation_steps).checked()
    if epochs < 0:
        raise ValueError("epochs must not be negative")
    steps, rest = divmod(_batches(sizes, drop_last), sizes.accumulation)
    return epochs * (steps + (rest > 0))


def epoch_of_step(
    step: int,
    num_samples: int,
    batch_size: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    per_epoch = optimizer_steps(num_samples, batch_size, 1, accumulation_steps, drop_last)
    if step < 0:
        raise ValueError("step must not be negative")
    if per_epoch == 0:
        raise ValueError("no optimizer step happens in an epoch")
    return operator.floordiv(step, per_epoch)
