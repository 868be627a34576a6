"""Kata 29: fight overfitting with a weight penalty and early stopping.

A model that overfits keeps lowering its training loss while its validation loss turns
back up. Two classic remedies: add a penalty on the size of the weights to the loss (L1
pulls every weight towards zero by the same amount, so small ones end near zero: a sparse
model, though plain gradient steps jitter around 0 rather than land on it; L2 shrinks each
weight in proportion to its size), and stop training once the validation loss has not
improved for a while, going back to the weights of the best epoch.
The penalty is for weights only: biases and the scale/shift of normalisation layers are
offsets, and shrinking them towards zero only hurts. Saving "the best weights" needs a real
copy: `model.state_dict()` returns the live tensors, which the next optimizer step changes.

A third remedy works inside the model: dropout. In training, every activation is zeroed
with probability p, so no unit can count on any other being there and the network cannot
memorise through one co-adapted path; the survivors are scaled by 1 / (1 - p) ("inverted"
dropout), so the expected activation is the same as without dropout. In evaluation
(`model.eval()`) dropout does nothing: forgetting `model.eval()` before validating gives
noisy, too pessimistic scores, forgetting `model.train()` after it trains without dropout.

Task: `weight_penalty`, an `EarlyStopping` helper that remembers and restores the best
weights, and `dropout` written from primitives.
"""

import torch
from torch import nn


def weight_penalty(model: nn.Module, l1: float = 0.0, l2: float = 0.0) -> torch.Tensor:
    """`l1 · Σ|w| + l2 · Σ w²`, summed over the weights of `model` only.

    - The weights are the parameters with two or more dimensions, whatever module holds
      them: Linear weight matrices, convolution kernels, embedding tables, attention and
      LSTM weights, a model's own 2-D nn.Parameter. Parameters with fewer dimensions are left out:
      biases, the weight and bias of norm layers (BatchNorm, LayerNorm), scalar parameters.
    - Each weight counts once, even when two modules share it (a tied embedding and output
      layer), and frozen weights (requires_grad=False) count too: the penalty is a function
      of all the weights, trained or not (a frozen weight's term just gets no gradient).
    - l1, l2 >= 0; raise ValueError if either is negative or NaN. The L2 term has no 1/2 in front,
      so its gradient is 2 · l2 · w.
    - Returns a 0-dim tensor with the parameters' dtype, on the model's device (0 for a
      model without weights; float32 on the CPU for one without parameters), still
      attached to the graph: `(loss + weight_penalty(model, l2=1e-4)).backward()` trains
      with the penalty; the gradient is l1 · sign(w) + 2 · l2 · w everywhere, 0 from the
      L1 term at w = 0 (finite: no NaN).
    - The model is not modified: its parameters and their .grad (what the caller has
      accumulated) stay as they are.

    >>> layer = nn.Linear(2, 1)
    >>> with torch.no_grad():
    ...     _ = layer.weight.copy_(torch.tensor([[1.0, -2.0]]))
    ...     _ = layer.bias.fill_(5.0)
    >>> weight_penalty(layer, l1=0.1, l2=0.01)  # 0.1 * 3 + 0.01 * 5; the bias does not count
    tensor(0.3500, grad_fn=<AddBackward0>)
    """
    # TODO: sum |w| and w² over the parameters with two or more dimensions.
    raise NotImplementedError


class EarlyStopping:
    """Stop when the validation loss has not improved for `patience` epochs in a row.

    Call `step(val_loss, model)` once per epoch, after validation. An epoch improves when
    `val_loss < best_loss - min_delta` (min_delta is absolute, in the loss's units; the
    first epoch with a finite loss always does; a loss that is not finite, nan, inf or -inf,
    never improves, and counts as an epoch without improvement); it then becomes the best
    one: `best_loss` is set to its loss and a copy of `model.state_dict()` (parameters and
    buffers, e.g. BatchNorm running statistics) is kept. A copy that later training cannot
    change: not the live tensors `state_dict()` returns.

    >>> model = nn.Linear(2, 1)
    >>> stopper = EarlyStopping(patience=2)
    >>> [stopper.step(loss, model) for loss in [1.0, 0.8, 0.9, 0.85]]
    [False, False, False, True]
    >>> stopper.best_loss
    0.8
    >>> stopper.restore_best(model)  # back to the weights of the epoch with loss 0.8
    """

    def __init__(self, patience: int, min_delta: float = 0.0) -> None:
        """patience >= 1 and min_delta finite and >= 0, else ValueError (a NaN patience
        or min_delta included, and an infinite min_delta: no epoch could improve; what an
        infinite patience does is left open). `best_loss` starts at inf."""
        # TODO: keep the settings; start with best_loss = inf and no saved weights.
        raise NotImplementedError

    def step(self, val_loss: float, model: nn.Module) -> bool:
        """Record one epoch; return True (a bool) when training should stop.

        Stop when this is the `patience`-th epoch in a row without improvement, or a later
        one of the same run (the advice stands until an epoch improves): with patience 2 and
        losses 1.0, 0.8, 0.9, 0.85, 0.86 the calls return False, False, False, True, True.
        The model is not modified (nor the .grad of its parameters).
        """
        # TODO: on improvement save a copy of the weights and reset the count; else count.
        raise NotImplementedError

    def restore_best(self, model: nn.Module) -> None:
        """Load the best epoch's saved weights and buffers back into `model`.

        Copies the values into the model's existing tensors (as `load_state_dict` does),
        so an optimizer built on the model keeps working. Raise RuntimeError if no epoch
        has improved yet (`step` never called, or only with losses that are not finite);
        a model without state (no parameters, no buffers) kept a copy with no entries,
        loaded as any other.
        """
        # TODO: load the saved copy into the model.
        raise NotImplementedError


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    """Inverted dropout, what nn.Dropout(p) does in training and in eval mode.

    - x: a floating tensor of finite values, any shape (empty too), dtype and device.
      p in [0, 1].
    - training=True: each element is kept with probability 1 - p, independently, and then
      multiplied by 1 / (1 - p); every other element is 0. The draws come from torch's global
      generator as the caller seeded it. p = 0 keeps every element as it is; p = 1 drops
      every one (zeros, never NaN: 0 times 1 / 0 is not a way to get there).
    - training=False: the values of x, unscaled (x itself may be returned).
    - Differentiable: the gradient is 1 / (1 - p) where an element was kept and 0 where it
      was dropped (1 everywhere in eval mode).
    - Returns x's shape, dtype and device. x is not modified.
    - Raises ValueError if p is outside [0, 1] (NaN too), whatever training says.

    Rules: do not call F.dropout, nn.Dropout or torch.dropout: build the mask yourself (for
    example `torch.rand_like(x) >= p`).

    >>> x = torch.ones(8)
    >>> torch.equal(dropout(x, 0.5, training=False), x)
    True
    >>> sorted(set(dropout(x, 0.5, training=True).tolist())) in ([0.0], [2.0], [0.0, 2.0])
    True
    """
    # TODO: eval: x; training: a random keep-mask, the kept values scaled by 1 / (1 - p).
    raise NotImplementedError
