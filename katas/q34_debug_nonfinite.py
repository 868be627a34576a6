"""Kata 34: a loss that will not go down, or turns NaN.

The first check when a loss will not go down: train on one small batch alone. Any model
that can learn memorises one batch, so its loss falls close to zero; if it does not, the
bug is in the model or the loop (a softmax before cross_entropy, a missing zero_grad, a
tensor detached from the graph, a learning rate far off), not in the data or the model's
size, and no amount of training on the full data set will fix it.

When the loss turns NaN, the question is where the first non-finite number appeared: one
layer overflows to inf, the next turns inf - inf into NaN, and from then on everything is
NaN. Forward hooks (`module.register_forward_hook`) see every module's output as it is
produced, so they can name the first culprit; remove them afterwards, or they stay on the
model and slow down (or break) every later forward pass. Many NaNs, though, come from the
data: a NaN pixel, float labels, a label equal to the number of classes. A validator that
checks each batch and says in plain words what is wrong saves hours of debugging.

A NaN can also be born in the backward pass while every forward value is finite:
`torch.where(x > 0, x.sqrt(), 0)` at a negative x picks 0, but the sqrt's gradient there
is NaN, and 0 * NaN is NaN. `torch.autograd.detect_anomaly()` checks each backward node's
results and raises, naming the first node that returned a NaN (and, as a warning, the
forward line that built it). It is slow: switch it on to find the bug, then off.

Task: `overfit_one_batch`, `first_nonfinite_module` with forward hooks, `validate_batch`
with clear errors, and `nan_born_in_backward` with anomaly detection.
"""

from collections.abc import Callable

import torch
from torch import nn


def first_nonfinite_module(model: nn.Module, x: torch.Tensor) -> str | None:
    """Name the first module whose output holds a NaN or an inf, during `model(x)`.

    - Run `model(x)` once, with a forward hook on every module of `model.named_modules()`,
      the model itself included (its name is ""). Gradients are not needed: run it with
      autograd off (`torch.no_grad()`), recording no graph.
    - Rule: register the hooks on the model's modules (`module.register_forward_hook`), not
      with a process-wide registry (`torch.nn.modules.module.register_module_forward_hook`
      sees every module of the process, those of other code too, and is refused).
    - Return the name, as `named_modules()` gives it (e.g. "encoder.2"), of the first module
      to finish its forward with a non-finite value (NaN, inf or -inf) anywhere in its
      output; None if every output is finite. "First" is in time, call by call: a module
      called twice (shared) whose first call was finite is not the culprit of a later
      module's inf. Each element is checked, not a sum: finite values whose sum overflows
      are finite. Submodules finish before the module that
      calls them, so the culprit is reported, not its parents.
    - An output may be a tensor, or a tuple, list or dict of them (nested): check every
      tensor in it; ignore anything that is not a tensor.
    - Leave the model as it was: every hook removed before returning, also when the forward
      pass raises (the error propagates); train/eval mode and parameters unchanged.

    >>> model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    >>> with torch.no_grad():
    ...     model[2].weight[0, 0] = float("nan")
    >>> first_nonfinite_module(model, torch.ones(1, 2))
    '2'
    """
    # TODO: register a forward hook per module, run the model, remove the hooks (finally).
    raise NotImplementedError


def validate_batch(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    num_classes: int,
    feature_shape: tuple[int, ...],
) -> None:
    """Check a classification batch; raise at the first problem with a plain message.

    Expected: `inputs` floating point of shape [B, *feature_shape] with B >= 1, all
    finite; `labels` int64 class indices of shape [B], each in [0, num_classes). Any device.
    The checks, in this order, and what each message must say:

    1. inputs not floating point (any other dtype: every integer one, unsigned included, bool,
       complex): TypeError naming "inputs" and their dtype (e.g. torch.uint8).
    2. inputs of the wrong shape: ValueError naming "inputs", the word "shape" and the shape
       received, written as a Python tuple, e.g. (4, 8, 8, 3), (5,) or (). An empty batch
       (B = 0) of the right feature shape: ValueError with the word "empty" (the shape
       comes first: an empty batch of the wrong feature shape gets the shape message).
    3. labels not int64: TypeError naming "labels" and their dtype (float labels are a common
       slip, and losses such as cross_entropy read float targets as probabilities).
    4. labels of the wrong shape (not [B]): ValueError naming "labels", the word "shape" and
       the shape received, as a tuple.
    5. non-finite inputs: ValueError naming "inputs" and what was found, and only that:
       the word "NaN" if there is a NaN, the word "inf" if there is an infinity, both if
       both (a message about NaN only must not contain "inf", not even as "infinite").
    6. labels out of range: ValueError naming "labels" and one offending label value.

    Returns None when the batch is fine. Nothing is modified.

    >>> validate_batch(torch.rand(2, 3), torch.tensor([0, 4]), num_classes=5, feature_shape=(3,))
    >>> validate_batch(torch.rand(2, 3), torch.tensor([0, 5]), num_classes=5, feature_shape=(3,))
    Traceback (most recent call last):
    ValueError: labels must be class indices in [0, 5), found 5
    """
    # TODO: run the six checks in order; make each message say what is wrong.
    raise NotImplementedError


def overfit_one_batch(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    steps: int = 50,
    lr: float = 0.5,
) -> list[float]:
    """Train `model` on this one batch for `steps` steps; return the loss before each step.

    - Loss: `F.cross_entropy(model(inputs), targets)` (logits [B, C], int64 class indices).
    - Optimizer: `torch.optim.SGD(model.parameters(), lr=lr)`, plain (no momentum, no
      weight decay), made once.
    - Each step: zero the gradients, compute the loss (one model(inputs)), backward, step.
      Gradients left in `.grad` before the call play no part: the first step zeroes them
      first.
    - Returns `steps` Python floats: the loss each step computed for its backward (in the
      model's own mode, dropout included), before its update.
      steps=0 returns [] and changes nothing, `.grad` included.
    - The model is trained in place; its train/eval mode is left as it is, and so is each
      parameter's requires_grad: those the caller froze (requires_grad=False) stay frozen
      and as they were. `inputs` and `targets` are not modified.

    >>> model = nn.Linear(3, 4)
    >>> losses = overfit_one_batch(model, torch.randn(8, 3), torch.arange(8) % 4, steps=200)
    >>> losses[-1] < 0.1 * losses[0]  # a healthy model and loop memorise one batch
    True
    """
    # TODO: make the optimizer once; then zero_grad, loss, backward, step, `steps` times.
    raise NotImplementedError


def nan_born_in_backward(compute_loss: Callable[[], torch.Tensor]) -> str | None:
    """Run `compute_loss()` and the backward pass of its result with anomaly detection on;
    name the backward node that first returned a NaN.

    - compute_loss: a function of no arguments that runs the forward pass and returns a
      scalar loss (whose graph reaches the tensors that require grad). Call it exactly
      once: the loss checked for NaN is the one whose backward runs.
    - Both the forward and the backward run with anomaly detection on, NaN checks included:
      `torch.autograd.detect_anomaly()`, or `torch.autograd.set_detect_anomaly(True)` with
      the previous setting put back in a `finally`; either will do. The setting has two
      parts, `torch.is_anomaly_enabled()` and `torch.is_anomaly_check_nan_enabled()`: put
      back both (a caller may have it on with check_nan=False; the NaN is still found).
    - Returns the node's name as autograd names it (`type(node).__name__`, e.g.
      "SqrtBackward0"), or None when the whole backward pass is finite (the gradients are
      then accumulated into `.grad`, as `loss.backward()` does).
    - A loss that is already NaN or infinite raises ValueError, before any backward pass:
      that NaN was born in the forward pass (look there with `first_nonfinite_module`).
    - Afterwards anomaly detection is as the caller had it (off, unless it was already on),
      also when compute_loss raises (the error propagates). Any other error of the backward
      pass propagates too. Its warnings are the tool's own output: do not silence them (no
      warnings filter of your own is in force while the forward or the backward runs).

    >>> import warnings
    >>> x = torch.tensor([-1.0, 4.0], requires_grad=True)
    >>> with warnings.catch_warnings():  # anomaly detection warns, by design
    ...     warnings.simplefilter("ignore")
    ...     nan_born_in_backward(lambda: torch.where(x > 0, x.sqrt(), 0).sum())
    'SqrtBackward0'
    """
    # TODO: detect_anomaly around forward and backward; turn its RuntimeError into a name.
    raise NotImplementedError
