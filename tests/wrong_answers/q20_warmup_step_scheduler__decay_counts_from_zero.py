"""Wrong: counts the decay steps from step 0 instead of from the end of the warmup."""

from solutions.q20_warmup_step_scheduler import WarmupStepLR as _Reference


class WarmupStepLR(_Reference):
    def get_lr(self):
        t = self.last_epoch
        if t < self.warmup_steps:
            factor = self.start_factor + (1 - self.start_factor) * t / self.warmup_steps
        else:
            factor = self.gamma ** (t // self.step_size)
        return [base_lr * factor for base_lr in self.base_lrs]
