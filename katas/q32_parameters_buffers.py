"""Kata 32: nn.Parameter, buffers and plain tensor attributes.

A module holds three kinds of tensors, and registering each the right way decides what
the rest of PyTorch does with it:
- an `nn.Parameter` is learnable: it is listed by `parameters()` (so the optimizer
  updates it), saved in `state_dict()` and moved or cast by `.to(...)`;
- a buffer (`register_buffer`) is state that is not learned, such as running
  statistics: not in `parameters()`, but moved by `.to(...)` and, when persistent,
  saved in `state_dict()`; a non-persistent buffer (`persistent=False`) is rebuilt by
  `__init__` instead of being saved, such as a constant table derived from the sizes;
- a plain tensor attribute is invisible to all of this: it is not saved, not trained,
  and stays behind on the old device and dtype when the module moves.

Task: a small normalising layer with one tensor of each registered kind.
"""

import torch
from torch import nn


class CenterAndScale(nn.Module):
    """`y = (x - running_mean) * weight * taper`, over the last dimension of x.

    Constructor: `CenterAndScale(num_features, momentum=0.1)` registers, as torch's own
    layers do, on torch's default device (the CPU unless `torch.set_default_device` or
    `with torch.device(...)` chose another) in torch's default dtype (float32 unless
    `torch.set_default_dtype` chose another):
    - `weight`: an nn.Parameter of shape [num_features], all ones, learnable;
    - `running_mean`: a persistent buffer of shape [num_features], all zeros: state
      that is updated in training and needed again after a reload;
    - `taper`: a non-persistent buffer of shape [num_features],
      `torch.linspace(1.0, 0.5, num_features)`: a constant fixed by num_features, so
      `__init__` rebuilds it instead of saving it.
    Nothing else: `parameters()` holds only weight, `buffers()` only running_mean and
    taper, and `state_dict()` only weight and running_mean. `.to(device)` or
    `.to(dtype)`, `.double()`, `.half()` move and cast all three.

    forward(x): x has shape [..., num_features] with the module's dtype and device (a
    single [num_features] input without a batch dimension included), contiguous or not; x
    is not modified, nor the .grad of the module's parameters.
    - In training mode (the module's mode decides, under torch.no_grad() too), first
      update the running mean in place (the same buffer tensor, not a new one assigned to
      the attribute), without recording it in the autograd graph:
      `running_mean = (1 - momentum) * running_mean + momentum * m`, where m is the mean of
      x over all dimensions but the last (for a 1-D x, x itself), in x's dtype: for
      float16 too where a float16 sum would overflow (96 rows near 1000; torch's mean
      accumulates in float32). In eval mode it is not changed.
    - Then return `(x - running_mean) * weight * taper` (with the updated running_mean),
      of x's shape. Gradients flow to x and weight; running_mean never has a grad_fn,
      so every training step's backward works on its own graph.
    - Raises ValueError if x.shape[-1] != num_features, in training and in eval mode,
      before changing anything: a call that raises leaves running_mean as it was. (x has
      at least one dimension: what a 0-dim x raises is left to you.)

    >>> layer = CenterAndScale(3)
    >>> [name for name, _ in layer.named_parameters()], list(layer.state_dict())
    (['weight'], ['weight', 'running_mean'])
    >>> layer(torch.tensor([[2.0, 2.0, 2.0]]))
    tensor([[1.8000, 1.3500, 0.9000]], grad_fn=<MulBackward0>)
    """

    def __init__(self, num_features: int, momentum: float = 0.1) -> None:
        # TODO: super().__init__(), then one Parameter and two buffers.
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO: update the running mean in training (no graph), then center and scale.
        raise NotImplementedError
