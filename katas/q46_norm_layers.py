"""Kata 46: batch norm and layer norm from primitives.

Both layers re-centre and re-scale activations, then apply a learned per-feature scale and
shift: y = (x - mean) / sqrt(var + eps) * weight + bias. They differ in what they average
over. Batch norm computes, for each channel, the mean and variance over the batch (and the
spatial positions), so an example's output depends on the rest of its batch; in training
it also keeps running averages of those statistics, and in evaluation it normalises with
the running averages instead. Layer norm computes them over the features of each example
on its own: no batch dependence, no running statistics, the same in training and
evaluation, and fine with a batch of one.

One detail trips people up: batch norm normalises with the biased variance (divide by n)
but stores the unbiased one (divide by n - 1) in its running estimate.

Task: write both as functions that agree with torch.nn.functional.batch_norm and
torch.nn.functional.layer_norm, running statistics included.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

from collections.abc import Sequence

import torch


def batch_norm(
    x: torch.Tensor,
    running_mean: torch.Tensor,
    running_var: torch.Tensor,
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    training: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> torch.Tensor:
    """Batch normalisation of `x` per channel (dimension 1), like F.batch_norm.

    - x: (N, C) or (N, C, *spatial) floating tensor; statistics are per channel, over the
      n = N × (product of spatial sizes) values of that channel. x is not modified.
    - running_mean, running_var: (C,) tensors of x's dtype and device.
    - training=True: normalise with the batch mean and the biased batch variance (divide
      by n), and update the running statistics in place (write into their memory, e.g.
      with lerp_ or copy_: a view of them or a state_dict entry must see the new values;
      rebinding `running_mean.data` to a new tensor does not count):
      running = (1 - momentum) × running + momentum × batch statistic, where the batch
      variance used here is the unbiased one (divide by n - 1). momentum is in [0, 1]
      (another value is not asked about: it need not be checked).
      The running statistics never record autograd history, even when x requires grad.
    - training=False: normalise with running_mean and running_var; they stay unchanged.
    - weight, bias: (C,) scale and shift, each of them or both None (scale 1, shift 0).
    - Returns y with x's shape, dtype and device, differentiable with respect to x,
      weight and bias (the gradients agree with F.batch_norm's). eps and momentum are used
      at their full value: float64 x does not see them rounded to float32.
    - Raises ValueError when x has fewer than two dimensions, when training with fewer
      than two values per channel (n < 2; n = 2 is fine), or when running_mean or
      running_var (either one) does not have shape (C,) (the right size in another layout,
      such as (C, 1), is wrong too). Only the n < 2 check is for training alone; the
      others hold in both modes. A call that raises leaves the running statistics unchanged.
    - float16 and bfloat16 x: compute the statistics in float32, as F.batch_norm does (a
      float16 variance overflows to inf once the spread passes about 256), and y too, the
      scale and shift included: y is the float32 result rounded once to x's dtype; the
      running statistics stay in x's dtype: their update, (1 - momentum) ×
      running + momentum × batch statistic, is computed in float32 too and rounded once to
      it (an unbiased batch variance past float16's 65504 still gives a running one that
      fits, as in F.batch_norm).

    Rules: build it from primitives (mean, var, sqrt, ...); do not call F.batch_norm,
    F.layer_norm, F.group_norm, F.instance_norm, F.rms_norm, nor any normalisation module.

    >>> x = torch.tensor([[1.0], [3.0]])
    >>> mean, var = torch.zeros(1), torch.ones(1)
    >>> batch_norm(x, mean, var, momentum=1.0, eps=0.0)
    tensor([[-1.],
            [ 1.]])
    >>> mean, var  # batch mean 2, unbiased batch variance 2 (biased: 1)
    (tensor([2.]), tensor([2.]))
    """
    # TODO: statistics over every dimension but 1, update the running ones, normalise.
    raise NotImplementedError


def layer_norm(
    x: torch.Tensor,
    normalized_shape: int | Sequence[int],
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    """Layer normalisation over the last dimensions of `x`, like F.layer_norm.

    - normalized_shape: an int or a sequence of ints (list, tuple, torch.Size) that x's
      trailing dimensions must equal; mean and biased variance (divide by the number of
      elements) are taken over those dimensions, separately for every leading index.
    - x: floating tensor of shape (*leading, *normalized_shape); leading may be empty, of
      size 1, or contain a 0 (then the result is empty too, and no warning is raised:
      torch.var_mean warns about "degrees of freedom" on an empty input, so compute the
      variance another way or handle that case). x is not modified.
    - weight, bias: tensors of shape normalized_shape, each of them or both None (scale 1,
      shift 0; nn.LayerNorm(bias=False) has a weight and no bias).
    - Returns y with x's shape, dtype and device, differentiable with respect to x,
      weight and bias (the gradients agree with F.layer_norm's).
    - Raises ValueError when normalized_shape is empty or x's trailing dimensions differ
      from it (x with fewer dimensions than normalized_shape, 0-dim included, differs). eps
      is used at its full value, as for batch_norm.
    - float16 and bfloat16 x: compute the statistics and y in float32, and round y once
      to x's dtype (as for batch_norm).

    Rules: as for batch_norm (no F.layer_norm and friends).

    >>> layer_norm(torch.tensor([[1.0, 3.0], [0.0, 10.0]]), 2, eps=0.0)
    tensor([[-1.,  1.],
            [-1.,  1.]])
    """
    # TODO: mean and biased variance over the trailing dims (keepdim=True), then normalise.
    raise NotImplementedError
