"""Kata 20: write your own LRScheduler subclass.

Every scheduler in `torch.optim.lr_scheduler` is a subclass of `LRScheduler`. The base class
does the bookkeeping: it records each group's starting lr in `self.base_lrs`, counts the
calls to `step()` in `self.last_epoch` (0 right after construction), and after every step
writes the values returned by `get_lr()` into the optimizer's param groups. It also saves
and restores all of that with `state_dict()` / `load_state_dict()`, which is how a run
resumes from a checkpoint. A subclass usually only stores its settings and writes `get_lr()`.

Task: a scheduler that warms up linearly and then decays in steps, the same schedule as
`SequentialLR([LinearLR(...), StepLR(...)], milestones=[warmup_steps])`, in one class.
"""

import torch
from torch.optim.lr_scheduler import LRScheduler


class WarmupStepLR(LRScheduler):
    """Linear warmup for `warmup_steps` steps, then multiply by `gamma` every `step_size` steps.

    After `t` calls to `step()` (t = `self.last_epoch`; t = 0 right after construction) every
    param group's lr is `base_lr * factor(t)`, where base_lr is that group's entry in
    `self.base_lrs`: its "initial_lr", which LRScheduler sets to the group's lr when the
    first scheduler is attached to it (a later scheduler keeps it), and
    - `t < warmup_steps`: `factor = start_factor + (1 - start_factor) * t / warmup_steps`
      (from start_factor up towards 1);
    - `t >= warmup_steps`: `factor = gamma ** ((t - warmup_steps) // step_size)`
      (1 for the first step_size steps after the warmup, then gamma, gamma**2, ...).

    The schedule must resume exactly from a checkpoint: after `state_dict()`, `torch.save`,
    `torch.load(weights_only=True)` and `load_state_dict()` on a freshly built optimizer and
    scheduler, the following lrs are the same as if training had never stopped. A resume
    restores both state dicts, the optimizer's first (it holds each group's current lr), then
    the scheduler's; so `get_lr` may work from `self.base_lrs` and `self.last_epoch` (closed
    form) or from each group's current lr (chainable, as torch's own schedulers do); the two
    differ for a scheduler built with last_epoch=-1 on groups another scheduler has already
    moved (closed form: from initial_lr; chainable: from the current lr), and either is
    accepted there. The methods inherited from LRScheduler do this as long as every attribute
    you store is plain data (numbers, strings, lists), not a function or an object.

    `last_epoch` is LRScheduler's: -1 (the default) starts the schedule at t = 0; k >= 0
    resumes it on an optimizer whose groups hold "initial_lr" (from an earlier scheduler),
    and construction then makes the step to t = k + 1.

    Raises ValueError if `warmup_steps` or `step_size` is not a finite number >= 1 (0, negative
    values, fractions below 1 such as 0.5, NaN and inf included), or `gamma` or `start_factor`
    is not in (0, 1] (NaN included), before changing anything (the optimizer's param groups
    included). A fraction above 1 (warmup_steps=2.5) may raise or be used as it is in the
    formula: either is accepted.

    >>> param = torch.zeros(2, requires_grad=True)
    >>> optimizer = torch.optim.SGD([param], lr=1.0)
    >>> scheduler = WarmupStepLR(
    ...     optimizer, warmup_steps=2, step_size=2, gamma=0.5, start_factor=0.5
    ... )
    >>> lrs = []
    >>> for _ in range(7):
    ...     lrs.append(optimizer.param_groups[0]["lr"])
    ...     optimizer.step()
    ...     scheduler.step()
    >>> lrs
    [0.5, 0.75, 1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        warmup_steps: int,
        step_size: int,
        gamma: float = 0.1,
        start_factor: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        # TODO: check and store the settings, then call super().__init__(optimizer, last_epoch).
        raise NotImplementedError

    def get_lr(self) -> list[float]:
        """The lr of every param group at step `self.last_epoch`, as `step()` calls it.

        Only `step()` calls it: a chainable get_lr (from the groups' current lrs) returns
        something else when called on its own, as torch's own schedulers do.
        """
        # TODO: compute factor(self.last_epoch) and scale each of self.base_lrs by it.
        raise NotImplementedError
