"""Kata 15: linear warmup then cosine decay, as a LambdaLR factor.

A learning-rate scheduler changes the optimizer's learning rate as training goes on. Many
runs warm up first (a small lr while the weights are still random, rising to the full lr)
and then decay it along half a cosine. `torch.optim.lr_scheduler.LambdaLR` turns any
function `step -> factor` into a scheduler: the lr of each param group becomes
`initial_lr * factor(step)`, where `step` is how many times `scheduler.step()` has run.

The order matters: since PyTorch 1.1 you call `optimizer.step()` first, then
`scheduler.step()`. The other order skips the first value of the schedule, and PyTorch
warns "Detected call of `lr_scheduler.step()` before `optimizer.step()`".

So does where: a scheduler counts its own `step()` calls, not epochs or batches. Schedules
written in epochs (StepLR(step_size=30) for "every 30 epochs", ReduceLROnPlateau, which
needs a validation metric) are stepped once per epoch, after the loop over batches;
schedules written in optimizer steps (warmup, OneCycleLR, a cosine over the whole run, as
here) once per batch. Stepping a per-epoch schedule per batch races through it in the
first epoch.

Task: write the factor, wrap it in a LambdaLR, and write the loop that trains one batch
per step and records the learning rate each optimizer step used.
"""

from collections.abc import Callable, Iterable

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler


def warmup_cosine_factor(
    step: int, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> float:
    """The lr multiplier at scheduler step `step` (a Python float).

    - Warmup, `0 <= step < warmup_steps`: `step / warmup_steps`, a straight line that
      starts at 0.
    - Decay, `warmup_steps <= step <= total_steps`: with
      `progress = (step - warmup_steps) / (total_steps - warmup_steps)` (0 to 1),
      `min_factor + (1 - min_factor) * (1 + cos(pi * progress)) / 2`, which falls from 1
      to `min_factor` along half a cosine.
    - After the schedule, `step > total_steps`: `min_factor` (the cosine must not rise again).
    - `warmup_steps == 0` means no warmup: the decay starts at step 0 with factor 1.

    Raises ValueError if `step < 0`, `warmup_steps < 0`, `total_steps <= warmup_steps`
    or `min_factor` is outside [0, 1] (a NaN `min_factor` too). `step`, `warmup_steps`
    and `total_steps` are ints: a NaN for them is outside the contract.

    >>> warmup_cosine_factor(2, warmup_steps=4, total_steps=12)
    0.5
    >>> warmup_cosine_factor(8, warmup_steps=4, total_steps=12)  # halfway through the decay
    0.5
    >>> warmup_cosine_factor(12, warmup_steps=4, total_steps=12, min_factor=0.1)
    0.1
    """
    # TODO: return the factor for this step, following the three phases above.
    raise NotImplementedError


def warmup_cosine_scheduler(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_factor: float = 0.0
) -> LambdaLR:
    """A `LambdaLR` on `optimizer` whose factor is `warmup_cosine_factor`.

    Every param group gets the same factor times its own initial lr. Creating the scheduler
    sets each group's lr to `initial_lr * factor(0)` (LambdaLR does that itself); after the
    k-th `scheduler.step()` it is `initial_lr * factor(k)`.
    Raises ValueError for the arguments `warmup_cosine_factor` rejects, before touching
    the optimizer: its param groups and attributes are then left exactly as they were
    (LambdaLR would already have added an "initial_lr" entry to each group and wrapped
    optimizer.step).

    >>> param = torch.zeros(3, requires_grad=True)
    >>> optimizer = torch.optim.SGD([param], lr=0.4)
    >>> scheduler = warmup_cosine_scheduler(optimizer, warmup_steps=4, total_steps=12)
    >>> optimizer.step(); scheduler.step(); optimizer.step(); scheduler.step()
    >>> optimizer.param_groups[0]["lr"]  # 0.4 * 2 / 4
    0.2
    """
    # TODO: build a LambdaLR whose lr_lambda calls warmup_cosine_factor.
    raise NotImplementedError


def train_with_schedule(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scheduler: LRScheduler,
) -> list[float]:
    """Train one step per batch, stepping the scheduler after every optimizer step.

    For each `(inputs, targets)` in `batches` (already on the model's device): reset the
    gradients, compute `loss_fn(model(inputs), targets)`, backpropagate, `optimizer.step()`,
    then `scheduler.step()`. The batches' tensors are the caller's data: leave them as they
    were (no change in place, no requires_grad set on them). The model and loss_fn are each
    called once per batch. Every batch gets both steps, a batch whose loss is nan or inf
    too: skipping such a step, as GradScaler does, is the caller's choice, not the loop's.

    The gradients are reset before each backward: `.grad` the caller left on the
    parameters never reaches a step. The optimizer steps the model's parameters, so
    `optimizer.zero_grad()` and `model.zero_grad()` both do it. requires_grad stays as
    the caller set it on every parameter: those the caller froze (requires_grad=False)
    stay frozen and as they were, also when they hold a .grad the caller left: the
    optimizer steps every parameter whose .grad is not None, a zeroed one too (weight
    decay and momentum move it), so reset .grad to None (zero_grad's default), not to
    zeros. The optimizer's state (momentum) goes on from the
    caller's earlier steps: a second call is the next epoch.

    Train the model in the mode the caller left it in (setting it is the caller's call):
    every forward runs in the modes the caller set, and model.training (and every
    submodule's) is the same on return.

    Returns the learning rate of param group 0 that each `optimizer.step()` used (what
    the param group holds at that step, also when the caller set it after the scheduler
    last did; not `scheduler.get_last_lr()`), one Python float per batch (also when the
    optimizer holds its lr as a tensor). Afterwards the optimizer holds the lr for the
    next step (the scheduler has been stepped once per batch). Must not trigger
    PyTorch's "`lr_scheduler.step()` before `optimizer.step()`" warning.

    >>> model = nn.Linear(2, 1)
    >>> optimizer = torch.optim.SGD(model.parameters(), lr=0.4)
    >>> scheduler = warmup_cosine_scheduler(optimizer, warmup_steps=2, total_steps=4)
    >>> batches = [(torch.randn(5, 2), torch.randn(5, 1))] * 4
    >>> train_with_schedule(model, batches, nn.MSELoss(), optimizer, scheduler)
    [0.0, 0.2, 0.4, 0.2]
    """
    # TODO: the training loop; record the lr before the scheduler changes it.
    raise NotImplementedError
