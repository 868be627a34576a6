"""Wrong: keeps the schedule's settings in a module-level variable that the factor reads,
so building a second scheduler changes the schedule of the first."""

from torch.optim.lr_scheduler import LambdaLR

from solutions.q15_warmup_cosine import _check, train_with_schedule, warmup_cosine_factor

_settings = {}


def warmup_cosine_scheduler(optimizer, warmup_steps, total_steps, min_factor=0.0):
    _check(warmup_steps, total_steps, min_factor)
    _settings.update(warmup_steps=warmup_steps, total_steps=total_steps, min_factor=min_factor)
    return LambdaLR(optimizer, lambda step: warmup_cosine_factor(step, **_settings))
