"""Kata 36: gradient accumulation.

`backward()` adds gradients into `.grad` instead of overwriting them. Gradient
accumulation uses that on purpose: run several small micro-batches forward and backward
one after the other, let their gradients add up, and take one optimizer step for all of
them. The step is the one a batch several times larger would give, while only one
micro-batch's activations are in memory at a time. Getting the scale right is the whole
trick: the loss of a big batch is a mean over its samples, so each micro-batch's mean
loss must be weighted by its share of the samples, also when the last micro-batch or
the last group is smaller than the others.

Task: `train_accumulated`, a training pass that takes one optimizer step per group of
`accum_steps` micro-batches.
"""

from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn


def train_accumulated(
    model: nn.Module,
    batches: Sequence[tuple[torch.Tensor, torch.Tensor]],
    optimizer: torch.optim.Optimizer,
    accum_steps: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = F.mse_loss,
) -> list[float]:
    """Train with one optimizer step per `accum_steps` micro-batches.

    - batches: a list of (inputs, targets) micro-batches on the model's device, in
      order; their sizes (dim 0) may differ, and each holds at least one sample (the mean
      loss of an empty batch is NaN). optimizer holds the model's parameters, whose
      requires_grad stays as the caller set it: those the caller froze
      (requires_grad=False) stay frozen and as they were, also when they hold a .grad
      from earlier work: the optimizer steps every parameter whose .grad is not None, a
      zeroed one too (momentum and weight decay move it), so set such a .grad to None
      (zero_grad's default), not to zeros. The optimizer's state (momentum)
      goes on from the caller's earlier steps. batches is not modified: the list and its
      tensors (values, requires_grad) are left as they were.
    - loss_fn(outputs, targets) returns the mean loss over the samples of a batch, like
      F.mse_loss or F.cross_entropy with their default reduction. Call it with these two
      arguments only, once per micro-batch, as the model: it may be any callable
      (nn.MSELoss(), a lambda, a partial). The model is called as `model(inputs)`, so its
      hooks run (not model.forward).
    - Consecutive micro-batches form groups of accum_steps; the last group may be
      shorter. For every group, call `optimizer.step()` exactly once (also when its loss
      or gradients are not finite: skipping such a step, as GradScaler does, is the
      caller's choice, not this function's), with gradients
      equal to those of `loss_fn(model(cat(inputs)), cat(targets))` on the whole group as
      one batch: the result equals one big-batch step per group. So weight each
      micro-batch's loss by n_i / N, its number of samples over the group's.
    - Run each micro-batch forward and then backward before the next one's forward, so
      only one micro-batch's graph is alive at a time (do not concatenate a group, and
      do not sum a group's losses before one backward). Backward frees the graph's saved
      tensors; backward(retain_graph=True) would keep them as long as the loss is kept.
    - Gradients present before the call are discarded, whatever they hold (NaN and inf
      included), and no gradient carries over from one group to the next. What .grad
      holds on return (None, zeros or the last group's gradients) is yours to choose.
    - Train the model in the mode the caller left it in: every forward runs in the modes
      the caller set (a model left in eval mode trains with dropout off), and
      model.training (and every submodule's) is the same on return.
    - Returns a list of Python floats, one per optimizer step: the group's loss as one
      batch (the weighted sum of its micro-batch losses), from before that step.
    - accum_steps is an int. Raises ValueError if accum_steps < 1 (a fraction below 1, such
      as 0.5, included), before changing anything (gradients included), also when batches
      is empty. What other non-integers (1.5, NaN) do is left to you.
    - An empty list returns [] and takes no step; gradients present before the call are
      discarded all the same (set to None or to zeros).

    >>> model = nn.Linear(2, 1)
    >>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    >>> batches = [(torch.randn(4, 2), torch.randn(4, 1)) for _ in range(5)]
    >>> len(train_accumulated(model, batches, optimizer, accum_steps=2))  # groups 2, 2, 1
    3
    """
    # TODO: loop over groups; backward each weighted micro-batch loss; step; zero_grad.
    raise NotImplementedError
