"""Wrong: rejects warmup_steps and step_size only when they are 0 (falsy), so negative
counts are accepted."""

from solutions.q20_warmup_step_scheduler import WarmupStepLR as Reference


class WarmupStepLR(Reference):
    def __init__(
        self, optimizer, warmup_steps, step_size, gamma=0.1, start_factor=0.1, last_epoch=-1
    ):
        if not warmup_steps or not step_size:
            raise ValueError("warmup_steps and step_size must be given")
        if not (0 < gamma <= 1 and 0 < start_factor <= 1):
            raise ValueError("gamma and start_factor must be in (0, 1]")
        self.warmup_steps = warmup_steps
        self.step_size = step_size
        self.gamma = gamma
        self.start_factor = start_factor
        super(Reference, self).__init__(optimizer, last_epoch)
