"""A frozen dataclass that validates in __post_init__ and derives the counts as properties,
rounding up with divmod's remainder and operator.truth."""

import operator
from dataclasses import dataclass


@dataclass(frozen=True)
class _Epoch:
    num_samples: int
    batch_size: int
    accumulation_steps: int = 1
    drop_last: bool = False

    def __post_init__(self) -> None:
        if self.num_samples < 0:
            raise ValueError(f"num_samples must be >= 0, got {self.num_samples}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size}")
        if self.accumulation_steps < 1:
            raise ValueError(f"accumulation_steps must be >= 1, got {self.accumulation_steps}")

    @property
    def batches(self) -> int:
        full, rest = divmod(self.num_samples, self.batch_size)
        return full + (0 if self.drop_last else int(operator.truth(rest)))

    @property
    def optimizer_steps(self) -> int:
        full, rest = divmod(self.batches, self.accumulation_steps)
        return full + int(operator.truth(rest))


def steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool = False) -> int:
    return _Epoch(num_samples, batch_size, drop_last=drop_last).batches


def optimizer_steps(
    num_samples: int,
    batch_size: int,
    epochs: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    epoch = _Epoch(num_samples, batch_size, accumulation_steps, drop_last)
    if epochs < 0:
        raise ValueError(f"epochs must be >= 0, got {epochs}")
    return epoch.optimizer_steps * epochs


def epoch_of_step(
    step: int,
    num_samples: int,
    batch_size: int,
    accumulation_steps: int = 1,
    drop_last: bool = False,
) -> int:
    epoch = _Epoch(num_samples, batch_size, accumulation_steps, drop_last)
    if step < 0:
        raise ValueError(f"step must be >= 0, got {step}")
    if epoch.optimizer_steps == 0:
        raise ValueError("no batches in an epoch, so no optimizer step ever happens")
    return step // epoch.optimizer_steps
