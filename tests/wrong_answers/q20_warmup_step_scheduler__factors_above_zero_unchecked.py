"""Wrong: rejects gamma and start_factor equal to 0 or above 1, but lets negative values
through."""

from solutions.q20_warmup_step_scheduler import WarmupStepLR as Reference


class WarmupStepLR(Reference):
    def __init__(
        self, optimizer, warmup_steps, step_size, gamma=0.1, start_factor=0.1, last_epoch=-1
    ):
        if warmup_steps < 1 or step_size < 1:
            raise ValueError("warmup_steps and step_size must be >= 1")
        if gamma == 0 or gamma > 1 or start_factor == 0 or start_factor > 1:
            raise ValueError("gamma and start_factor must be in (0, 1]")
        self.warmup_steps = warmup_steps
        self.step_size = step_size
        self.gamma = gamma
        self.start_factor = start_factor
        super(Reference, self).__init__(optimizer, last_epoch)
