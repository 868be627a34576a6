"""Kata 24: one epoch of the standard training loop.

Every PyTorch training loop repeats the same five steps for each batch:

1. `optimizer.zero_grad()`: `backward()` adds into `.grad`, so clear what is left there;
2. `outputs = model(inputs)`: the forward pass;
3. `loss = loss_fn(outputs, targets)`;
4. `loss.backward()`: the gradient of the loss lands in each parameter's `.grad`;
5. `optimizer.step()`: update the parameters from those gradients.

Around them: `model.train()` before the loop, because layers such as dropout and batch norm
behave differently in training and evaluation, and moving each batch to the model's device.
Swap two steps or drop one and training still runs, just wrongly, which is why this loop
is worth writing out carefully once.

Task: train for one epoch and report the epoch's mean loss per sample.
"""

from collections.abc import Callable, Iterable

import torch
from torch import nn


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    """Run one pass over `loader`, one optimizer step per batch, and return the mean loss.

    - model: an nn.Module whose parameters are on `device`. It may arrive in eval mode, or
      in training mode holding submodules in eval: put it in training mode before the first
      batch, every submodule included, as model.train() does (it stays in training mode).
      requires_grad stays as the caller set it on every parameter: those the caller froze
      (requires_grad=False) stay frozen and as they were, also when they hold a .grad
      the caller left: the optimizer steps every parameter whose .grad is not None, a
      zeroed one too (weight decay and momentum move it), so reset .grad to None
      (zero_grad's default), not to zeros.
    - loader: an iterable of `(inputs, targets)` pairs, such as a DataLoader (with
      drop_last, a sampler over part of the data, ...) or a generator, which can be
      iterated only once: go over it once. The tensors may be on any device (usually the
      CPU): move both to `device`. The last batch may be smaller than the others.
      The loader's tensors are the caller's data: leave them as they were (no change in
      place, no requires_grad set on them, which .to(device) returns as they are when
      they are already there).
    - loss_fn: returns the mean loss over a batch's samples as a 0-dim tensor, like
      `nn.MSELoss()` or `nn.CrossEntropyLoss()`. Call it, and the model, once per batch
      (the model as `model(inputs)`, so its hooks run, not model.forward): the loss
      averaged is the one backpropagated (no second call to log it).
    - optimizer: an optimizer over the model's parameters. Each batch gets exactly one
      `optimizer.step()` (a batch whose loss is nan or inf too: none is skipped, and the
      mean then shows it; a batch of 0 samples too, whose loss, a mean over nothing, is
      nan: the epoch's mean may leave it out or count it as nan * 0, either is accepted),
      driven by that batch's gradients alone: gradients left from an
      earlier batch, or from before this call, must not leak into it. Clear them with
      `optimizer.zero_grad()` or `model.zero_grad()`, either one: they differ only for
      parameters the optimizer does not hold, whose .grad this contract leaves open.

    Returns the mean loss per sample over the epoch, as a Python float: the sum over batches
    of (batch loss * number of samples in the batch) divided by the number of samples the
    loader yielded (not len(loader.dataset): drop_last and samplers leave samples out),
    where a batch's loss is the one computed for its backward pass and its number of
    samples is `inputs.shape[0]` (not len(targets): per-token targets may be flattened).
    Keep each batch's loss as a number (loss.item()), summed as Python floats (a sum of
    bfloat16 tensors rounds at every batch): no batch's autograd graph may outlive its
    step (a sum of loss tensors, or the outputs kept, holds every batch's graph until the
    epoch ends), and backward frees what the graph saved (no retain_graph=True, which keeps
    a batch's saved activations through the next batch's forward).
    Raises ValueError if the loader yields no sample: no batch at all (an empty DataLoader,
    list or generator alike), or only batches of 0 samples.

    >>> model = nn.Linear(3, 1)
    >>> data = torch.utils.data.TensorDataset(torch.randn(10, 3), torch.randn(10, 1))
    >>> loader = torch.utils.data.DataLoader(data, batch_size=4)  # batches of 4, 4 and 2
    >>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    >>> loss = train_epoch(model, loader, nn.MSELoss(), optimizer, torch.device("cpu"))
    >>> isinstance(loss, float)
    True
    """
    # TODO: model.train(), then the five steps for every batch; weight each batch's loss
    # by its number of samples.
    raise NotImplementedError
