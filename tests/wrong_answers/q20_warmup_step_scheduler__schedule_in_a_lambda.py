"""Wrong: keeps the schedule in a lambda attribute, which state_dict() then holds, so
torch.save cannot write a checkpoint and training cannot resume."""

from torch.optim.lr_scheduler import LRScheduler


class WarmupStepLR(LRScheduler):
    def __init__(
        self, optimizer, warmup_steps, step_size, gamma=0.1, start_factor=0.1, last_epoch=-1
    ):
        if warmup_steps < 1 or step_size < 1 or not (0 < gamma <= 1 and 0 < start_factor <= 1):
            raise ValueError("bad settings")
        self.factor = lambda t: (
            start_factor + (1 - start_factor) * t / warmup_steps
            if t < warmup_steps
            else gamma ** ((t - warmup_steps) // step_size)
        )
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base_lr * self.factor(self.last_epoch) for base_lr in self.base_lrs]
