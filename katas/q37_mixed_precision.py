"""Kata 37: mixed-precision training with torch.autocast and a gradient scaler.

Mixed precision runs the heavy operations (matrix multiplies, convolutions) in a 16-bit
float type, while the weights, the optimizer and the precision-sensitive operations
(reductions, losses) stay in float32. `torch.autocast` picks the dtype op by op; you keep
float32 "master" weights and never cast the model yourself.

Which 16-bit type depends on the hardware:
- bfloat16 has float32's exponent range, so gradients neither flush to zero nor overflow
  more than in float32, and no loss scaling is needed. Recent GPUs (NVIDIA's since Ampere,
  compute capability 8.0: A100, H100, RTX 30xx and later) run it as fast as float16, which
  makes bfloat16 without a scaler today's usual choice there; the CPU uses it too.
- Older GPUs (V100, T4) have fast float16 only. Its range is small: gradients below
  about 6e-8 flush to zero. So the loss is multiplied by a large factor before backward
  (`torch.amp.GradScaler`), the gradients are divided by it again before the optimizer
  step, a step whose gradients overflowed to inf/NaN is skipped, and the factor shrinks.
  Between backward and the step the gradients are still scaled: whatever reads them there
  (gradient clipping, a logged gradient norm) calls `scaler.unscale_(optimizer)` first.
A GradScaler created with `enabled=False` passes everything through unchanged, so one
piece of code serves every device.

Task: write the pieces of such a training step once, for any device, gradient clipping
included. Use the device-generic `torch.amp` APIs; the old `torch.cuda.amp` ones are
deprecated.
"""

from collections.abc import Callable

import torch
from torch import nn


def amp_dtype(device: torch.device | str) -> torch.dtype:
    """The 16-bit dtype autocast should use on `device`.

    - A CUDA device: torch.bfloat16 where the GPU `device` names runs it natively, else
      torch.float16. Rule: ask `torch.cuda.is_bf16_supported(including_emulation=False)`
      with that GPU current (`with torch.cuda.device(device):`; "cuda" without an index is
      the current GPU). Its default, including_emulation=True, also says True where
      bfloat16 is only emulated (a V100), and it always answers for the current GPU.
    - Any other device: torch.bfloat16.
    - `device` is a torch.device or a string such as "cpu", "cuda" or "cuda:1".

    >>> amp_dtype(torch.device("cpu"))
    torch.bfloat16
    >>> amp_dtype("cuda:0")  # doctest: +SKIP
    torch.bfloat16
    >>> # (on an A100 or H100; a V100 gives torch.float16)
    """
    # TODO: choose the dtype from the device's type (and, on CUDA, what the GPU supports).
    raise NotImplementedError


def make_grad_scaler(device: torch.device | str) -> torch.amp.GradScaler:
    """A new `torch.amp.GradScaler` for `device`'s type (`torch.device(device).type`), with
    GradScaler's default settings (initial scale, growth and backoff factors, interval): each
    call makes its own (a scaler keeps its scale as state: two loops must not share one).

    - Enabled exactly when `amp_dtype(device)` is torch.float16 (float16 gradients need
      scaling); disabled otherwise, where it passes everything through unchanged.
    - `device` is a torch.device or a string, as for `amp_dtype`.

    >>> make_grad_scaler("cpu").is_enabled()
    False
    """
    # TODO: build the scaler for this device type, enabled only where float16 is used.
    raise NotImplementedError


def amp_train_step(
    model: nn.Module,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler,
    max_grad_norm: float | None = None,
) -> torch.Tensor:
    """One mixed-precision training step of `model` on one batch; returns the loss.

    - `model` (float32 parameters), `inputs` and `targets` are on the same device; the
      optimizer holds the model's parameters. The parameters and their gradients stay
      float32: do not cast the model. requires_grad stays as the caller set it on every
      parameter: those the caller froze (requires_grad=False) stay frozen and as they were,
      also when they hold a .grad the caller left: the optimizer steps every parameter
      whose .grad is not None, a zeroed one too (weight decay and momentum move it), so
      reset .grad to None (zero_grad's default), not to zeros.
    - Whatever gradients the parameters hold before the call are discarded.
    - Rule: the model's train/eval mode, and each submodule's, stay as the caller set them
      (no `model.train()`): a model in eval mode, or with frozen BatchNorm layers in eval
      mode, steps that way.
    - The forward pass and `loss_fn(model(inputs), targets)` run under `torch.autocast`
      for `inputs`' device type with dtype `amp_dtype(inputs.device)`, the model and
      loss_fn each called once (the model as `model(inputs)`, so its hooks run, not
      model.forward): the loss returned is the one backpropagated; backward runs
      after the autocast block. Rule: the model gets `inputs`, and loss_fn `targets`, as
      they are (autocast casts per op; do not cast them to the 16-bit dtype, or to the
      outputs' dtype, yourself). Rule: call this module's
      `amp_dtype` for the dtype (the tests replace it to play another GPU).
    - Backward, the optimizer step and the scale update all go through `scaler`, which may
      be enabled or disabled on any device. With an enabled scaler the optimizer sees the
      unscaled gradients, and a step whose gradients contain inf or NaN leaves the
      parameters unchanged and lowers the scale.
    - max_grad_norm: None (the default) clips nothing. A number > 0 (inf included, which
      clips nothing) clips the gradients before the step, as
      `torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)` does, and clips
      the true gradients: after an enabled scaler's backward, `.grad` holds them times the
      scale until `scaler.unscale_(optimizer)` divides it out (`scaler.step` then does not
      divide again), so unscale, clip, then step. Clipped while still scaled, they would be
      capped at max_grad_norm × scale, and the step would come out `scale` times too small.
      A step whose gradients contain inf or NaN is skipped as without clipping.
      Raises ValueError, before changing anything (gradients included), if max_grad_norm
      is neither None nor > 0 (0, negative, NaN).
    - Returns the loss of this forward pass (before the update) as a 0-dim float32 tensor
      on `inputs`' device, detached from the graph, whatever dtype `loss_fn` produced
      (bfloat16, float16 or float64 alike).

    >>> model = nn.Linear(3, 1)
    >>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    >>> x, y = torch.randn(8, 3), torch.randn(8, 1)
    >>> loss = amp_train_step(model, x, y, nn.functional.mse_loss, optimizer,
    ...                       make_grad_scaler(x.device), max_grad_norm=1.0)
    >>> loss.dtype, model.weight.dtype
    (torch.float32, torch.float32)
    """
    # TODO: zero the gradients, forward under autocast, backward via the scaler, unscale and
    # clip when asked, then step and update via the scaler.
    raise NotImplementedError
