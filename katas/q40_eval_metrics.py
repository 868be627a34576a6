"""Kata 40: evaluation metrics over a whole loader: accuracy, confusion matrix, macro-F1.

Evaluating a classifier means running it over every batch of a validation loader, in eval
mode (dropout off, batch norm on its running statistics) and without building autograd
graphs, then summarising the predictions. Two traps: the last batch is often shorter, so
averaging per-batch accuracies weights its samples too much; and an evaluation inside a
training loop must hand the model back in the mode it came in.

A confusion matrix counts, for each true class, how often each class was predicted. It
holds everything the usual metrics need: accuracy is its trace over its sum, and each
class's F1 score comes from its row, its column and its diagonal entry. Macro-F1 averages
the per-class F1 scores, so that rare classes count as much as common ones.

Task: the confusion matrix of one batch, macro-F1 from a confusion matrix, and an
evaluation loop that puts them together.
"""

from collections.abc import Iterable

import torch
from torch import nn


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    """Count every (true class, predicted class) pair.

    - preds, targets: 1-D integer tensors of the same length N (N may be 0; a 0-dim tensor
      is not 1-D), on the same device, with values in [0, num_classes). Not modified.
      Any integer dtype, uint16, uint32 and uint64 included: torch has almost no arithmetic
      for those three (not even `<` on the CPU), so convert to int64 before computing
      (checks included: num_classes may pass what the labels' dtype holds, uint8 labels
      with 300 classes, and compared with a uint8 tensor it wraps around).
    - Returns a (num_classes, num_classes) int64 tensor on their device whose entry
      [t, p] is the number of samples with target t and prediction p (rows: true class,
      columns: predicted class).
    - Raises ValueError if preds or targets is not 1-D, their lengths differ, or a value
      of either is outside [0, num_classes).

    Rule: no Python loops. Hint, not rule: turn each pair into one index, then count with
    torch.bincount (scatter_add_ or index_put_ with accumulate=True count as well).

    >>> confusion_matrix(torch.tensor([0, 2, 2, 1]), torch.tensor([0, 1, 2, 1]), num_classes=3)
    tensor([[1, 0, 0],
            [0, 1, 1],
            [0, 0, 1]])
    """
    # TODO: combine each (target, pred) pair into one index and count them.
    raise NotImplementedError


def macro_f1(confusion: torch.Tensor) -> torch.Tensor:
    """The mean F1 score over the classes of a confusion matrix.

    - confusion: a (C, C) integer tensor laid out as `confusion_matrix` returns it, of any
      integer dtype (uint16, uint32 and uint64 included, as above), with counts past 2**31
      too (compute in a type that holds them).
    - For class c: TP = confusion[c, c], FP = the rest of column c, FN = the rest of row c,
      and F1_c = 2 TP / (2 TP + FP + FN).
    - A class with 2 TP + FP + FN == 0 (never a target and never predicted) has no F1 and
      is left out of the mean. Every other class counts equally; one that is predicted but
      never a target (or the reverse) has F1 = 0.
    - Returns a 0-dim float32 tensor on confusion's device.
    - Raises ValueError if confusion holds no sample at all (all zeros).

    Rule: no Python loops.

    >>> macro_f1(torch.tensor([[1, 0, 0], [0, 1, 1], [0, 0, 0]]))  # class 2 never a target
    tensor(0.5556)
    """
    # TODO: TP from the diagonal, FP and FN from column and row sums; average the F1 of
    # the classes that appear.
    raise NotImplementedError


def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_classes: int,
    device: torch.device,
) -> tuple[float, torch.Tensor, float]:
    """Run `model` once over each batch of `loader`; return (accuracy, confusion, macro-F1).

    - model: maps a batch of inputs to logits of shape (batch, num_classes); its parameters
      are on `device`. Run it in eval mode (every submodule) with autograd off
      (`torch.no_grad()` or `torch.inference_mode()`), and leave every submodule in the
      mode it arrived in: a model in training may hold submodules in eval (a frozen
      backbone's batch norm), and they stay so; `model.train(was_training)` alone would
      switch them back to training. The modes come back also when the model raises (the
      error propagates), a KeyboardInterrupt (Ctrl-C) included, and autograd is as it was
      afterwards (on, or off for a caller under no_grad). The model is otherwise left as
      it came: its parameters, buffers and their .grad too (an evaluation between the
      backward passes of gradient accumulation neither clears nor adds to them: no
      model.zero_grad()).
    - loader: yields `(inputs, targets)` pairs, targets holding class indices; the tensors
      may be on any device: move them to `device`, in their own dtype (float64 inputs for
      a float64 model, token ids for an embedding). The last batch may be shorter. Any
      iterable: a DataLoader, a list, or a generator, which can be read only once.
    - The prediction for a sample is the argmax of its logits; where several classes tie
      for the largest logit, the first of them (as torch.argmax picks it).
    - Returns accuracy (correct predictions / all samples the loader yields, a Python
      float; a DataLoader with drop_last or a sampler yields fewer than its dataset holds),
      the confusion matrix of all samples (as `confusion_matrix`, int64 on `device`) and
      the macro-F1 of that matrix (a Python float). The matrix is an ordinary tensor the
      caller can add into: not an inference tensor (one created under
      torch.inference_mode() cannot be written in place outside it: create it before the
      block, or clone it after).
    - Raises ValueError if the loader yields no sample (no batch, or only empty ones).

    >>> model = nn.Linear(4, 3)
    >>> data = torch.utils.data.TensorDataset(torch.randn(10, 4), torch.randint(0, 3, (10,)))
    >>> loader = torch.utils.data.DataLoader(data, batch_size=4)  # batches of 4, 4 and 2
    >>> accuracy, confusion, f1 = evaluate(model, loader, 3, torch.device("cpu"))
    >>> confusion.shape, int(confusion.sum()), model.training
    (torch.Size([3, 3]), 10, True)
    """
    # TODO: remember the mode, switch to eval, sum the batches' confusion matrices without
    # gradients, restore the mode, then derive the metrics from the summed matrix.
    raise NotImplementedError
